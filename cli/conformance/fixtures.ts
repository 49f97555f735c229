import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { ConflictError, type Schemas, type StampdClient } from "../../sdk/src/index.js";
import { loadSpec } from "../../server/contract/openapi.js";
import { ed25519Signer, formatPublicKey, type Signer } from "../../server/keys/ed25519.js";
import { decimal, formatDecimal, isZero, subtract, toMinorUnits } from "../../server/vault/fees/decimal.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";
import { batchCost } from "../../server/vault/fees/schedule.js";
import { NotRun } from "./check.js";
import { sleep } from "./traffic.js";

/**
 * What the checks need besides a client: ids of existing resources, a document, fee receipts and
 * retrieval proofs. `ExampleFixtures` takes them from the spec's examples (a mock answers those);
 * `LiveFixtures` makes real ones through the SDK, which the kit's traffic refuses without
 * `--write` (the check is then not run).
 */
export interface Fixtures {
  /** The document the stamp fixtures were made from; its text names the run. */
  readonly document: Blob;
  readonly filename: string;
  stamp(): Promise<Schemas["StampResponse"]>;
  /** The id of a stamp whose batch is sealed and in the log. */
  confirmedStampId(): Promise<string>;
  /** A stamp with the `bitcoin` anchor whose `.ots` a calendar's answer makes available. */
  openTimestampsStampId(): Promise<string>;
  /** A stamp made with `generate_fp`, so it has shadow transforms. */
  fingerprintedStampId(): Promise<string>;
  fingerprint(): Promise<Schemas["FingerprintDocument"]>;
  identityId(): Promise<string>;
  /** A new active vault of the owner's account, allowing manual release. */
  newVault(): Promise<string>;
  /** A new vault of the owner's account, already released. */
  releasedVault(): Promise<string>;
  /**
   * A fee receipt paying exactly what renewing `vaults` vaults at once costs on the target (its
   * `GET /vault/fees`: one heartbeat fee each, less the batch discount from two on), in its
   * currency, to its recipient; with `short`, the smallest amount less (not run when it is free).
   */
  heartbeatReceipt(vaults: number, short?: "short"): Promise<string>;
  /** The retrieval proof of a vault made by these fixtures, signed at `signedAt` (default now). */
  retrieveProof(vaultId: string, signedAt?: string): Promise<Schemas["RetrieveRequest"]>;
  /** Fields of `POST /vault/create`, tagged `{"conformance": <run id>}`. */
  vaultRequest(): Promise<Schemas["CreateVaultRequest"]>;
}

type Json = Record<string, unknown>;
const spec = () =>
  loadSpec() as unknown as {
    components: {
      examples: Record<string, { value: Json }>;
      parameters: Record<string, { example: string }>;
    };
  };
const example = <T>(name: string): T => structuredClone(spec().components.examples[name]!.value) as T;
const parameterExample = (name: string): string => spec().components.parameters[name]!.example;
/** A 409 (pending, or no calendar answer yet) means try again; other errors are the answer. */
const notYet = (err: unknown) => {
  if (err instanceof ConflictError) return false;
  throw err;
};

/** Signs fee receipts (with the issuer given, if any) and retrieval proofs (with a key of its own). */
abstract class Signing {
  readonly document: Blob;
  readonly filename: string;
  private readonly recipient: KeyObject = generateKeyPairSync("ed25519").privateKey;

  constructor(
    protected readonly runId: string,
    private readonly issuer: Signer | undefined,
  ) {
    this.document = new Blob([`stampd conformance run ${runId}\n`], { type: "text/plain" });
    this.filename = `conformance-${runId}.txt`;
  }

  protected abstract fees(): Promise<Schemas["VaultFees"]>;

  async heartbeatReceipt(vaults: number, short?: "short"): Promise<string> {
    const fees = await this.fees();
    const cost = batchCost(
      {
        createFee: decimal(fees.create_fee),
        heartbeatFee: decimal(fees.heartbeat_fee),
        batchDiscount: decimal(fees.batch_discount),
        currency: fees.currency,
        recipient: fees.fee_recipient,
      },
      vaults,
    );
    if (short && isZero(cost)) throw new NotRun("the target charges no heartbeat fee: nothing pays less");
    // Receipts carry at most 18 decimals: one unit of the 18th is the smallest amount less.
    const amount = short
      ? subtract({ units: toMinorUnits(cost), scale: 18 }, { units: 1n, scale: 18 })
      : cost;
    return this.receipt(formatDecimal(amount));
  }

  /**
   * A fee receipt for any `amount` (the REST fuzzer's), in the target's currency, to its recipient,
   * issued now or at `issuedAt` (the fuzzer's receipts from the future and from long ago).
   */
  async receipt(amount: string, issuedAt = new Date()): Promise<string> {
    if (!this.issuer) throw new NotRun("needs --fee-issuer-key to sign fee receipts");
    const { currency, fee_recipient: recipient } = await this.fees();
    return issueReceipt(this.issuer, { amount, currency, recipient, issuedAt, expiresInSeconds: 3600 });
  }

  async retrieveProof(
    vaultId: string,
    signedAt = new Date().toISOString(),
  ): Promise<Schemas["RetrieveRequest"]> {
    const message = Buffer.from(`stampd-vault-retrieve:${vaultId}:${signedAt}`);
    return { proof_of_identity: sign(null, message, this.recipient).toString("base64"), signed_at: signedAt };
  }

  async vaultRequest(): Promise<Schemas["CreateVaultRequest"]> {
    return {
      encrypted_key: Buffer.from(`conformance run ${this.runId}: not a real key`).toString("base64"),
      heartbeat_deadline: 3600,
      recipient_public_key: formatPublicKey(this.recipient),
      content_uris: ["ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"],
      allow_manual_release: true,
      metadata: { conformance: this.runId },
    };
  }
}

/** Values from the spec's examples; nothing is created. Receipts are signed by a throwaway key. */
export class ExampleFixtures extends Signing implements Fixtures {
  constructor(runId: string) {
    super(runId, ed25519Signer(generateKeyPairSync("ed25519").privateKey));
  }

  /** The spec's fee example (the mock answers getVaultFees with it). */
  protected async fees(): Promise<Schemas["VaultFees"]> {
    return {
      create_fee: "0.00",
      heartbeat_fee: "0.50",
      batch_discount: "0.10",
      currency: "USDC",
      fee_recipient: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    };
  }
  async stamp() {
    return example<Schemas["StampResponse"]>("StampCreated");
  }
  async confirmedStampId() {
    return parameterExample("StampIdPath");
  }
  async fingerprintedStampId() {
    return parameterExample("StampIdPath");
  }
  async openTimestampsStampId() {
    return parameterExample("StampIdPath");
  }
  async fingerprint() {
    return example<Schemas["FingerprintResponse"]>("Fingerprint").fingerprint_json;
  }
  async identityId() {
    // The IdentityIdPath parameter has no example: any well-formed id is answered by a mock.
    return "1dd1979a4e749515";
  }
  async newVault() {
    return parameterExample("VaultIdPath");
  }
  async releasedVault() {
    return parameterExample("VaultIdPath");
  }
}

/** Real resources made through the SDK on the target, each made once per run and shared. */
export class LiveFixtures extends Signing implements Fixtures {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(
    private readonly client: StampdClient,
    runId: string,
    issuer: Signer | undefined,
    /** How long to wait for the target to seal a stamp's batch. */
    private readonly confirmSeconds: number,
  ) {
    super(runId, issuer);
  }

  private once<T>(name: string, make: () => Promise<T>): Promise<T> {
    if (!this.cache.has(name)) this.cache.set(name, make());
    return this.cache.get(name) as Promise<T>;
  }

  protected fees() {
    return this.once("fees", () => this.client.vault.fees());
  }
  stamp() {
    return this.once("stamp", () =>
      this.client.stamps.create({ file: this.document, filename: this.filename, preset: "casual" }),
    );
  }
  confirmedStampId() {
    return this.once("confirmedStamp", async () => {
      const { stamp_id } = await this.stamp();
      const until = Date.now() + this.confirmSeconds * 1000;
      while (Date.now() < until) {
        if ((await this.client.stamps.get(stamp_id)).status !== "pending") return stamp_id;
        await sleep(250);
      }
      throw new NotRun(
        `stamp ${stamp_id} was not confirmed within ${this.confirmSeconds} s (--confirm-timeout)`,
      );
    });
  }
  openTimestampsStampId() {
    return this.once("otsStamp", async () => {
      // OpenTimestamps files start from SHA-256; an upload is hashed with SHA3-256.
      const digest = createHash("sha256").update(`conformance ${this.runId} ${Date.now()}`).digest("hex");
      const { stamp_id } = await this.client.stamps.createFromHash({
        hash: `sha256:${digest}`,
        anchors: "bitcoin",
      });
      const until = Date.now() + this.confirmSeconds * 1000;
      while (Date.now() < until) {
        const { anchors } = await this.client.stamps.get(stamp_id);
        if (anchors.some((a) => a.type === "bitcoin" && a.status === "unavailable"))
          throw new NotRun("the target's bitcoin anchor is unavailable (no OTS_CALENDAR_URLS)");
        if (await this.client.stamps.openTimestamps(stamp_id).then(() => true, notYet)) return stamp_id;
        await sleep(250);
      }
      throw new NotRun(
        `no OpenTimestamps calendar answered for stamp ${stamp_id} within ${this.confirmSeconds} s (--confirm-timeout)`,
      );
    });
  }
  fingerprintedStampId() {
    return this.once("fpStamp", async () => {
      const made = { file: this.document, filename: this.filename, generate_fp: true };
      return (await this.client.stamps.create(made)).stamp_id;
    });
  }
  fingerprint() {
    return this.once("fingerprint", async () => {
      const made = await this.client.fingerprints.create({ file: this.document, filename: this.filename });
      return made.fingerprint_json;
    });
  }
  identityId() {
    return this.once("identity", async () => (await this.client.identities.create()).identity_id);
  }
  async newVault() {
    return (await this.client.vault.create(await this.vaultRequest())).id;
  }
  async releasedVault() {
    const id = await this.newVault();
    await this.client.vault.release(id, { reason: `conformance ${this.runId}` });
    return id;
  }
}
