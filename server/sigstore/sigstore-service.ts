import { createHash } from "node:crypto";
import type { components } from "../../gen/openapi/types.js";
import type { Clock } from "../clock.js";
import { notFound, ServiceError } from "../errors.js";
import type { DeploymentKeyRing, RingSigstoreKey } from "../keys/key-ring.js";
import { noteKeyHint } from "../log/checkpoint-signer.js";
import { ulidBytes } from "../proofs/proof-service.js";
import type { TimestampAuthority } from "../proofs/tsa/authority.js";
import { digestOids } from "../proofs/tsa/oids.js";
import type { StampRepository, StoredStamp } from "../stamps/stamp-repository.js";
import { bundleDigest, hashedRekordBody } from "./hashed-rekord.js";
import { inPeriod, keyPeriod, type OutsideTsa, type SignedDigest } from "./outside-tsa.js";
import type { LoggedStamp, StampLog } from "./stamp-log.js";
import type { OutsideTimestamp } from "./stamp-log-repository.js";
import { type SigstoreTrustedRoot, stampLogInstance, trustedRoot } from "./trusted-root.js";

export type SigstoreBundle = components["schemas"]["SigstoreBundle"];

export interface SigstoreServiceDeps {
  stamps: Pick<StampRepository, "get">;
  log: StampLog;
  ring: Pick<DeploymentKeyRing, "sigstoreKey" | "entries">;
  tsa: Pick<TimestampAuthority, "respond">;
  /** The outside TSA of `TSA_URL` (with `TSA_CA_FILE`), whose token a bundle also carries. */
  outside?: Pick<OutsideTsa, "timestamp">;
  clock: Pick<Clock, "now">;
  /** The `Retry-After` of a pending stamp: its batch seals within BATCH_INTERVAL_MS. */
  pendingRetryAfterSeconds: number;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** Token serials 2^128 + the stamp id's ULID: never one of `GET /stamps/{id}/timestamp.tsr`'s. */
const BUNDLE_SERIALS = 1n << 128n;

/** Stamps as Sigstore bundles, and the trusted root they verify against (docs/sigstore.md). */
export class SigstoreService {
  constructor(private readonly deps: SigstoreServiceDeps) {}

  /** The stamp as a Sigstore bundle v0.3, its entry appended to the stamp log first if needed. */
  async bundle(stampId: string): Promise<SigstoreBundle> {
    const stamp = await this.deps.stamps.get(stampId);
    if (!stamp) throw notFound(`stamp ${stampId} not found`, "stamp_not_found");
    if (stamp.status === "pending") {
      throw new ServiceError(
        "conflict",
        `stamp ${stampId} is pending; its batch is not sealed yet`,
        "stamp_not_confirmed",
        undefined,
        this.deps.pendingRetryAfterSeconds,
      );
    }
    const signed = bundleDigest(stamp);
    if (!signed) {
      const { algorithm } = stamp.document.document;
      throw new ServiceError(
        "unprocessable",
        `a ${algorithm} stamp cannot be a Sigstore bundle (Sigstore names no ${algorithm} digest)`,
        "timestamp_algorithm_unsupported",
      );
    }
    const { algorithm: digestAlgorithm, digest } = signed;
    const key = this.keyOf(stamp);
    const logged = await this.deps.log.entry(stampId, () =>
      hashedRekordBody({ algorithm: digestAlgorithm, digest, signature: key.sign(digest), spki: key.spki }),
    );
    const signature = loggedSignature(logged.body);
    const [token, outside] = await Promise.all([
      this.deps.tsa.respond({
        digestOid: digestOids.sha256!,
        hashedMessage: createHash("sha256").update(signature).digest(),
        genTime: wholeSecond(stamp.document.created_at),
        serialNumber: ulidBytes(stamp.id.slice("stp_".length), BUNDLE_SERIALS),
      }),
      this.outsideToken(stampId, logged, key, { algorithm: digestAlgorithm, digest, signature }),
    ]);
    const timestamps = [token, ...(outside ? [outside.response] : [])];
    return {
      mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
      verificationMaterial: {
        publicKey: { hint: key.keyId },
        tlogEntries: [this.tlogEntry(logged)],
        timestampVerificationData: {
          rfc3161Timestamps: timestamps.map((t) => ({ signedTimestamp: base64(t) })),
        },
      },
      messageSignature: {
        messageDigest: { algorithm: digestAlgorithm, digest: base64(digest) },
        signature: base64(signature),
      },
    };
  }

  async trustedRoot(): Promise<SigstoreTrustedRoot> {
    return trustedRoot(this.deps.ring.entries, await this.deps.log.outsideTsaChains());
  }

  /**
   * The outside TSA's token of the stamp's bundle: the one kept with its entry, else a fresh one
   * kept from now on. It is asked for only while the stamp's key is in its period: Sigstore
   * clients check the key's period against every timestamp, and this one is dated now, not at
   * the stamp. A kept token is left out when the key's period, as `GET /keys` gives it now, no
   * longer holds its time (a revocation dated before it), so the bundle still verifies.
   */
  private async outsideToken(
    stampId: string,
    logged: LoggedStamp,
    key: RingSigstoreKey,
    signed: Omit<SignedDigest, "key">,
  ): Promise<OutsideTimestamp | undefined> {
    const published = this.deps.ring.entries.find((k) => k.kind === "sigstore" && k.key_id === key.keyId);
    if (!published) return undefined;
    const period = keyPeriod(published);
    const kept = logged.outsideTimestamp;
    if (kept) return inPeriod(period, kept.genTime) ? kept : undefined;
    if (!this.deps.outside || !inPeriod(period, this.deps.clock.now())) return undefined;
    const fresh = await this.deps.outside.timestamp({
      ...signed,
      key: { keyId: key.keyId, spki: key.spki, period },
    });
    if (!fresh) return undefined;
    const stored = await this.deps.log.keepOutsideTimestamp(stampId, fresh);
    return inPeriod(period, stored.genTime) ? stored : undefined;
  }

  /** The Sigstore key of the service key that signed the stamp (its period holds the stamp's time). */
  private keyOf(stamp: StoredStamp): RingSigstoreKey {
    const key = this.deps.ring.sigstoreKey(stamp.document.service_public_key);
    if (!key) throw new Error(`the key ring holds no private key for ${stamp.document.service_public_key}`);
    return key;
  }

  private tlogEntry(logged: LoggedStamp): SigstoreBundle["verificationMaterial"]["tlogEntries"][number] {
    const { checkpoint } = logged;
    return {
      logIndex: String(logged.index),
      logId: this.checkpointLogId(checkpoint.note),
      kindVersion: { kind: "hashedrekord", version: "0.0.2" },
      inclusionProof: {
        logIndex: String(logged.index),
        rootHash: base64(checkpoint.root),
        treeSize: String(checkpoint.treeSize),
        hashes: logged.inclusionProof.map(base64),
        checkpoint: { envelope: checkpoint.note },
      },
      canonicalizedBody: base64(logged.body),
    };
  }

  /** The `logId` of the log key that signed `note`: the ring's log key its key hint names. */
  private checkpointLogId(note: string): { keyId: string } {
    const hint = noteKeyHint(note);
    const signer = this.deps.ring.entries
      .filter((k) => k.kind === "log" && k.origin)
      .map(stampLogInstance)
      .find((tlog) => Buffer.from(tlog.checkpointKeyId.keyId, "base64").subarray(0, 4).equals(hint));
    if (!signer) throw new Error("the stamp log's checkpoint is signed by no log key of the ring");
    return signer.logId;
  }
}

/**
 * The stamp's time to the second below. Sigstore clients read a GeneralizedTime's fraction only
 * when it has three digits and drop it even then (sigstore-js's parseTime), while DER drops trailing
 * zeros (".81"): a whole second is read alike everywhere. It is never before the period of the key
 * that signed the stamp as the trusted root and docs/sigstore.md give it (starts to the second below).
 */
const wholeSecond = (iso: string): Date => new Date(Math.floor(Date.parse(iso) / 1000) * 1000);

/** The signature a stamp log entry carries (the one logged wins over one made again). */
function loggedSignature(body: Uint8Array): Uint8Array {
  const entry = JSON.parse(new TextDecoder().decode(body));
  return Buffer.from(entry.spec.hashedRekordV002.signature.content, "base64");
}
