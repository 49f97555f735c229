import { generateKeyPairSync } from "node:crypto";
import { keygenAsync, signAsync } from "@noble/ed25519";
import type { Schemas, StampdClient } from "../../sdk/src/index.js";
import { loadSpec } from "../../server/contract/openapi.js";
import { ed25519Signer, type Signer } from "../../server/keys/ed25519.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";

/**
 * What the contract cases need besides the client: ids of existing resources, documents, fee
 * receipts and retrieval proofs. `ExampleFixtures` takes them from the spec's examples (for the
 * Prism mock, and for a real server's 501 answers, which do not look at them); `LiveFixtures`
 * makes real ones on a real server through the SDK itself.
 */
export interface Fixtures {
  /** The document the stamp fixtures were made from. */
  readonly document: Blob;
  stamp(): Promise<Schemas["StampResponse"]>;
  /** The id of a stamp whose batch is sealed and in the log. */
  confirmedStampId(): Promise<string>;
  /** A stamp made with `generate_fp`, so it has shadow transforms. */
  fingerprintedStampId(): Promise<string>;
  fingerprint(): Promise<Schemas["FingerprintDocument"]>;
  identityId(): Promise<string>;
  /** A new active vault of the calling account, allowing manual release. */
  newVault(): Promise<string>;
  /** A new vault of the calling account, already released. */
  releasedVault(): Promise<string>;
  /** A fee receipt for `amount` in the deployment's currency, to its recipient. */
  receipt(amount: string): Promise<string>;
  /** The retrieval proof of a vault created by this fixture set, signed now by its recipient. */
  /** A proof signed at `signedAt` (default: now); distinct times make distinct proofs. */
  retrieveProof(vaultId: string, signedAt?: string): Promise<Schemas["RetrieveRequest"]>;
  /** Fields of `POST /vault/create` with this fixture set's recipient key. */
  vaultRequest(): Promise<Schemas["CreateVaultRequest"]>;
}

type Json = Record<string, unknown>;
const spec = loadSpec() as unknown as {
  components: { examples: Record<string, { value: Json }>; parameters: Record<string, { example: string }> };
};
const example = <T>(name: string): T => structuredClone(spec.components.examples[name]!.value) as T;
const parameterExample = (name: string): string => spec.components.parameters[name]!.example;

/** Signs fee receipts and retrieval proofs; the same code for both kinds of fixtures. */
abstract class Signing {
  private readonly recipient = keygenAsync();

  constructor(protected readonly issuer: Signer) {}

  protected abstract fees(): Promise<Schemas["VaultFees"]>;

  async receipt(amount: string): Promise<string> {
    const { currency, fee_recipient: recipient } = await this.fees();
    return issueReceipt(this.issuer, {
      amount,
      currency,
      recipient,
      issuedAt: new Date(),
      expiresInSeconds: 3600,
    });
  }

  async retrieveProof(
    vaultId: string,
    signedAt = new Date().toISOString(),
  ): Promise<Schemas["RetrieveRequest"]> {
    const message = new TextEncoder().encode(`stampd-vault-retrieve:${vaultId}:${signedAt}`);
    const signature = await signAsync(message, (await this.recipient).secretKey);
    return { proof_of_identity: Buffer.from(signature).toString("base64"), signed_at: signedAt };
  }

  async vaultRequest(): Promise<Schemas["CreateVaultRequest"]> {
    const { publicKey } = await this.recipient;
    return {
      encrypted_key: Buffer.from("an encrypted key, as the client escrows it").toString("base64"),
      heartbeat_deadline: 3600,
      recipient_public_key: `ed25519:${Buffer.from(publicKey).toString("hex")}`,
      content_uris: ["ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"],
      allow_manual_release: true,
      metadata: { label: "contract test" },
    };
  }
}

/** Values from the spec's examples; nothing is created. Receipts are signed by a throwaway key. */
export class ExampleFixtures extends Signing implements Fixtures {
  readonly document = new Blob(["stampd contract test document\n"], { type: "text/plain" });

  constructor() {
    super(ed25519Signer(generateKeyPairSync("ed25519").privateKey));
  }

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
  async fingerprintedStampId() {
    return parameterExample("StampIdPath");
  }
  async confirmedStampId() {
    return parameterExample("StampIdPath");
  }
  async fingerprint() {
    return example<Schemas["FingerprintResponse"]>("Fingerprint").fingerprint_json;
  }
  async identityId() {
    return "1dd1979a4e749515";
  }
  async newVault() {
    return parameterExample("VaultIdPath");
  }
  async releasedVault() {
    return parameterExample("VaultIdPath");
  }
}

/** Real resources made through the SDK on a real server; each is made once and shared. */
export class LiveFixtures extends Signing implements Fixtures {
  readonly document = new Blob(["stampd contract test document\n"], { type: "text/plain" });
  private readonly cache = new Map<string, Promise<unknown>>();

  /** `issuer`: a fee issuer the server trusts (its development issuer). */
  constructor(
    private readonly client: StampdClient,
    issuer: Signer,
  ) {
    super(issuer);
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
      this.client.stamps.create({ file: this.document, filename: "contract.txt", preset: "casual" }),
    );
  }
  /** Waits for the server's proof pipeline (a short BATCH_INTERVAL_MS in the contract runs). */
  confirmedStampId() {
    return this.once("confirmedStamp", async () => {
      const { stamp_id } = await this.client.stamps.create({ file: this.document, filename: "contract.txt" });
      for (let attempt = 0; attempt < 100; attempt++) {
        if ((await this.client.stamps.get(stamp_id)).status !== "pending") return stamp_id;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`stamp ${stamp_id} was not confirmed within 5 s`);
    });
  }
  fingerprintedStampId() {
    return this.once("fpStamp", async () => {
      const stamp = await this.client.stamps.create({
        file: this.document,
        filename: "contract.txt",
        generate_fp: true,
      });
      return stamp.stamp_id;
    });
  }
  fingerprint() {
    return this.once("fingerprint", async () => {
      const made = await this.client.fingerprints.create({ file: this.document, filename: "contract.txt" });
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
    await this.client.vault.release(id, { reason: "contract test" });
    return id;
  }
}
