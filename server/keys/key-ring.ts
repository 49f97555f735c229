import { createHash, generateKeyPairSync, type KeyObject } from "node:crypto";
import { hexToBytes } from "@noble/hashes/utils.js";
import { verifierKey } from "../../core/checkpoint.js";
import type { RingKey, RingKeyKind } from "../../core/key-ring.js";
import type { AtRestCipher } from "./at-rest-cipher.js";
import { ed25519Signer, privateKeyFromPkcs8, type Signer } from "./ed25519.js";
import type { KeyRingRepository, SigningState, SigningStates, StoredRingKey } from "./key-ring-repository.js";
import { CLOCK_MARGIN_MS } from "./ring-changes.js";
import { RotatingSigner } from "./rotating-signer.js";
import { publicKeyPem, type SigstoreKey, sigstoreKeyOf } from "./sigstore-key.js";

/** Whether `key` signs for `at`: in its period and not revoked by then (core/key-ring.ts's rule). */
const signsAt = (key: SigningState, at: Date): boolean =>
  at >= key.notBefore && (!key.notAfter || at < key.notAfter) && (!key.revokedAt || at < key.revokedAt);

/** Where a key's signatures start counting when nothing older is known: the first key of a ring. */
export const SINCE_EVER = new Date(0);

/** The first 8 bytes of SHA-256 of what names the key (a log key: its verifier key), hex. */
export const ringKeyId = (name: string): string =>
  createHash("sha256").update(name).digest("hex").slice(0, 16);

/** `ed25519:<hex>` as raw bytes (what checkpoints and verifier keys carry). */
const rawKey = (publicKey: string): Uint8Array => hexToBytes(publicKey.slice("ed25519:".length));

/** A log key's C2SP verifier key: `<origin>+<key id>+<base64 key>`. */
export const logVerifierKey = (key: Pick<StoredRingKey, "origin" | "publicKey">): string =>
  verifierKey(key.origin!, rawKey(key.publicKey));

/** The associated data a ring key's private key is sealed under: it opens in its own row only. */
const sealedAs = (kind: RingKeyKind, keyId: string) => `key_ring:${kind}:${keyId}`;

/** A private key (PKCS#8 DER) sealed with the at-rest key for its row of the ring. */
export const sealRingKey = (kind: RingKeyKind, keyId: string, der: Buffer, atRest: AtRestCipher): Buffer =>
  atRest.seal(der, sealedAs(kind, keyId));

/** A new Ed25519 ring entry for `kind`, its private key sealed with the at-rest key. */
export function newRingKey(
  kind: "service" | "log",
  privateKey: KeyObject,
  atRest: AtRestCipher,
  period: { notBefore: Date; origin?: string },
): StoredRingKey {
  const publicKey = ed25519Signer(privateKey).publicKey;
  const origin = period.origin ?? null;
  const keyId = ringKeyId(kind === "log" ? logVerifierKey({ origin, publicKey }) : publicKey);
  const der = privateKey.export({ format: "der", type: "pkcs8" });
  return {
    kind,
    keyId,
    publicKey,
    origin,
    sealedPrivateKey: sealRingKey(kind, keyId, der, atRest),
    notBefore: period.notBefore,
    notAfter: null,
    state: "active",
    revokedAt: null,
    revocationReason: null,
  };
}

/** A ring key's private key as PKCS#8 DER, unsealed with the at-rest key. */
export function ringPrivateKeyDer(key: StoredRingKey, atRest: AtRestCipher): Buffer {
  if (!key.sealedPrivateKey)
    throw new Error(`the key ring holds no private key for ${key.kind} key ${key.keyId}`);
  return atRest.open(key.sealedPrivateKey, sealedAs(key.kind, key.keyId));
}

/** A ring key's private key, unsealed with the at-rest key. */
export const ringPrivateKey = (key: StoredRingKey, atRest: AtRestCipher): KeyObject =>
  privateKeyFromPkcs8(ringPrivateKeyDer(key, atRest));

export const generateEd25519 = (): KeyObject => generateKeyPairSync("ed25519").privateKey;

/** A ring key as `GET /keys` publishes it: never its private key. */
export function publishedKey(key: StoredRingKey): RingKey {
  return {
    kind: key.kind,
    key_id: key.keyId,
    public_key: key.publicKey,
    public_key_pem: publicKeyPem(key.publicKey),
    ...(key.origin !== null && { origin: key.origin, verifier_key: logVerifierKey(key) }),
    not_before: key.notBefore.toISOString(),
    ...(key.notAfter && { not_after: key.notAfter.toISOString() }),
    state: key.state,
    ...(key.revokedAt && { revoked_at: key.revokedAt.toISOString() }),
    ...(key.revocationReason !== null && { revocation_reason: key.revocationReason }),
  };
}

/** A service key's Sigstore twin with the `key_id` `GET /keys` publishes it under. */
export type RingSigstoreKey = SigstoreKey & { keyId: string };

/** A service key's Sigstore twin as `GET /keys` publishes it: its service key's period and state. */
const publishedTwin = (service: StoredRingKey, twin: RingSigstoreKey): RingKey => ({
  ...publishedKey({ ...service, origin: null, publicKey: twin.publicKey }),
  kind: "sigstore",
  key_id: twin.keyId,
});

export interface KeyRingOptions {
  repo: KeyRingRepository;
  atRest: AtRestCipher;
  /** How often the ring is re-read (`KEY_RING_REFRESH_SECONDS`): the bound on seeing a rotation. */
  refreshMs: number;
  /** The origin this instance's log signs under (`LOG_ORIGIN`), fixed for its lifetime. */
  logOrigin: string;
}

/**
 * The deployment's key ring as this instance sees it: what `GET /keys` publishes and verification
 * trusts, the signers of the active service and log keys, and the TSA keys. Re-read every
 * `refreshMs`, so a rotation made anywhere (`stampd keys rotate`, another instance) is signed with
 * here within that time; a retired key stays valid for the overlap rotation gives it (rotationOverlapMs).
 */
export class DeploymentKeyRing {
  private keys: StoredRingKey[] = [];
  private published: RingKey[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  /** The signers' check of the ring in flight, and the one queued to begin after it. */
  private checking: Promise<SigningStates> | undefined;
  private nextCheck: Promise<SigningStates> | undefined;
  private readonly signers = new Map<string, Signer>();
  /** The Sigstore twins of the service keys, by service public key, each derived once. */
  private readonly twins = new Map<string, RingSigstoreKey>();
  readonly service: RotatingSigner;
  readonly log: RotatingSigner;

  private constructor(
    private readonly options: KeyRingOptions,
    keys: StoredRingKey[],
  ) {
    this.accept(keys);
    this.service = new RotatingSigner(this.activeSigner("service"));
    this.log = new RotatingSigner(this.activeSigner("log"));
  }

  /** The ring as stored now; it must hold an active service and log key (joinKeyRing registers them). */
  static async open(options: KeyRingOptions): Promise<DeploymentKeyRing> {
    return new DeploymentKeyRing(options, await options.repo.list());
  }

  /** Every key, oldest first, as `GET /keys` publishes it. */
  get entries(): readonly RingKey[] {
    return this.published;
  }

  /**
   * The TSA keys as last read, oldest first, private keys sealed: tokens are issued on demand,
   * dated to their stamp, so each is signed by the key whose period holds that date.
   */
  get tsa(): readonly StoredRingKey[] {
    return this.keys.filter((k) => k.kind === "tsa");
  }

  /**
   * The Sigstore key of the service key `servicePublicKey` (server/keys/sigstore-key.ts), as last
   * read; undefined when the ring does not hold that key or its private key.
   */
  sigstoreKey(servicePublicKey: string): RingSigstoreKey | undefined {
    return this.twins.get(servicePublicKey);
  }

  /** A TSA key's private key (PKCS#8 DER), unsealed with the at-rest key. */
  tsaPrivateKey(key: StoredRingKey): Buffer {
    return ringPrivateKeyDer(key, this.options.atRest);
  }

  /**
   * The ring, re-read first when it does not hold `publicKey`: another instance may have signed
   * with a key rotated in since this one last read it. Concurrent misses share one read.
   */
  async knowing(publicKey: string): Promise<readonly RingKey[]> {
    if (!this.published.some((k) => k.public_key === publicKey)) {
      this.reading ??= this.refresh().finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return this.published;
  }

  /**
   * Re-reads the ring and signs with its active keys from now on; a log key under another origin
   * (`stampd keys rotate --kind log --origin`) waits for a restart with that `LOG_ORIGIN`, since
   * its checkpoints signed under this instance's name would verify against no ring key.
   */
  async refresh(): Promise<void> {
    this.accept(await this.options.repo.list());
    this.service.use(this.activeSigner("service"));
    if (this.active("log").origin === this.options.logOrigin) this.log.use(this.activeSigner("log"));
  }

  /**
   * Whether the store vouches, now, for the `kind` key `publicKey` having signed at `signedAt`:
   * call it after storing what the key signed and before answering it (issue #35: an instance
   * must never acknowledge a stamp signed with a key revoked meanwhile), or before publishing a
   * signature dated before the call (a batch's, a checkpoint's). Reads the ring's states
   * once they were asked for after this call; concurrent callers share a read, so a wave of
   * stamps costs one query, and each stamp waits for one or two of them. A ring change holds the
   * ring's lock from before it takes its time (PostgreSQL: ACCESS EXCLUSIVE; SQLite: the write
   * lock every stamp commit takes), so a read that misses a revocation began before the
   * revocation's time, and after the stamp was dated: the key's trust ends after the stamp's
   * time (with CLOCK_MARGIN_MS for an instance's clock estimate). When the key no longer signs
   * for `signedAt`, the ring is re-read first, so the caller signs again with the active key.
   */
  async vouches(kind: "service" | "log", publicKey: string, signedAt: Date): Promise<boolean> {
    for (;;) {
      const { keys, startedAt } = await this.checkAfterNow();
      const key = keys.find((k) => k.kind === kind && k.publicKey === publicKey);
      // A checkpoint carries no time: a revoked log key's signatures never verify, whatever `at`.
      const revokedLogKey = kind === "log" && key?.state === "revoked";
      if (!key || revokedLogKey || !signsAt(key, signedAt)) {
        await this.refresh();
        return false;
      }
      // Dated by this instance's estimate of the database's clock, the stamp may read as later
      // than the read began (an estimate a little fast): a ring change's signatures stop
      // counting CLOCK_MARGIN_MS after its time, so a lead within it still falls before it.
      // Past it (a clock far off), wait it out: only a read begun late enough vouches.
      if (!startedAt) return true;
      const leadMs = signedAt.getTime() - startedAt.getTime();
      if (leadMs < CLOCK_MARGIN_MS) return true;
      await new Promise((resolve) => setTimeout(resolve, leadMs - CLOCK_MARGIN_MS + 1));
    }
  }

  /** A read of the signing states begun after this call, shared with every caller waiting for one. */
  private checkAfterNow(): Promise<SigningStates> {
    if (!this.checking) return this.beginCheck();
    this.nextCheck ??= this.checking
      .catch(() => undefined)
      .then(() => {
        this.nextCheck = undefined;
        return this.beginCheck();
      });
    return this.nextCheck;
  }

  private beginCheck(): Promise<SigningStates> {
    const check = this.options.repo.signingStates().finally(() => {
      if (this.checking === check) this.checking = undefined;
    });
    this.checking = check;
    return check;
  }

  /** Re-reads the ring every `refreshMs` until stop(); a failed read keeps the ring as it was. */
  start(onError: (err: unknown) => void): void {
    this.timer = setInterval(() => this.refresh().catch(onError), this.options.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private accept(keys: StoredRingKey[]): void {
    this.keys = keys;
    this.published = keys.flatMap((key) => {
      const twin = key.kind === "service" ? this.twinOf(key) : undefined;
      return twin ? [publishedKey(key), publishedTwin(key, twin)] : [publishedKey(key)];
    });
  }

  private twinOf(key: StoredRingKey): RingSigstoreKey | undefined {
    if (!key.sealedPrivateKey) return undefined;
    let twin = this.twins.get(key.publicKey);
    if (!twin) {
      const derived = sigstoreKeyOf(ringPrivateKeyDer(key, this.options.atRest));
      twin = { ...derived, keyId: ringKeyId(derived.publicKey) };
      this.twins.set(key.publicKey, twin);
    }
    return twin;
  }

  private active(kind: RingKeyKind): StoredRingKey {
    const key = this.keys.find((k) => k.kind === kind && k.state === "active");
    if (!key) throw new Error(`the key ring has no active ${kind} key`);
    return key;
  }

  /** The active key's signer, its private key unsealed once per key. */
  private activeSigner(kind: "service" | "log"): Signer {
    const key = this.active(kind);
    const id = `${kind}:${key.keyId}`;
    let signer = this.signers.get(id);
    if (!signer) {
      signer = ed25519Signer(ringPrivateKey(key, this.options.atRest));
      this.signers.set(id, signer);
    }
    return signer;
  }
}
