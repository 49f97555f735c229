import { type KeyObject, X509Certificate } from "node:crypto";
import type { RingKeyKind } from "../../core/key-ring.js";
import type { Clock } from "../clock.js";
import type { AtRestCipher } from "./at-rest-cipher.js";
import { generateEd25519, newRingKey } from "./key-ring.js";
import type { KeyRingRepository, Revocation, Revoked, StoredRingKey } from "./key-ring-repository.js";
import { freshTsaCredentials, newTsaRingKey, type TsaKeyAndChain } from "./tsa-keys.js";

export interface RotationPorts {
  repo: KeyRingRepository;
  atRest: AtRestCipher;
  /** The deployment's clock (the database's on PostgreSQL), read by the change under the ring's lock. */
  clock: Clock;
  /**
   * How long the retired key stays valid after the rotation: twice the ring's re-read interval,
   * so stamps an instance signs before it sees the rotation still fall in the old key's period.
   */
  overlapMs: number;
}

export interface RotateOptions {
  /** The new key (an Ed25519 PKCS#8 key, e.g. from a key file); absent: a fresh one. */
  privateKey?: KeyObject;
  /** Log keys: the new origin (moving the log to another name); absent: the active key's. */
  origin?: string;
  /** TSA keys: the new key and its chain (readTsaCredentials); absent: a fresh key and CA. */
  tsa?: TsaKeyAndChain;
}

export interface Rotated {
  active: StoredRingKey;
  retired?: StoredRingKey;
}

/**
 * Makes a new key the kind's active one and retires the old: what it signed stays valid, as the
 * ring publishes its period. Every instance signs with the new key once it re-reads the ring.
 */
export async function rotateKey(
  ports: RotationPorts,
  kind: RingKeyKind,
  options: RotateOptions = {},
): Promise<Rotated> {
  const { repo, clock, overlapMs } = ports;
  if (kind === "sigstore") {
    throw new Error(
      "a sigstore key is derived from its service key: rotate the service key (--kind service)",
    );
  }
  const next = kind === "tsa" ? await nextTsaKey(ports, options.tsa) : await nextKey(ports, kind, options);
  return repo.rotate(next, { now: () => clock.now(), overlapMs });
}

async function nextKey(
  { repo, atRest, clock }: RotationPorts,
  kind: "service" | "log",
  options: RotateOptions,
): Promise<StoredRingKey> {
  const current = (await repo.list()).find((k) => k.kind === kind && k.state === "active");
  const origin = kind === "log" ? (options.origin ?? current?.origin ?? undefined) : undefined;
  if (kind === "log" && !origin) throw new Error("a log key needs an origin: give --origin");
  return newRingKey(kind, options.privateKey ?? generateEd25519(), atRest, {
    notBefore: clock.now(),
    origin,
  });
}

/**
 * The next TSA key: the given one, or a fresh key with a fresh CA. Its certificate must be valid
 * from the start of its period, since verifiers check it at each token's time.
 */
async function nextTsaKey({ atRest, clock }: RotationPorts, given?: TsaKeyAndChain): Promise<StoredRingKey> {
  const now = clock.now();
  const credentials = given ?? (await freshTsaCredentials(now));
  const cert = new X509Certificate(credentials.chainPem);
  if (now < new Date(cert.validFrom) || now >= new Date(cert.validTo)) {
    throw new Error(
      `the TSA certificate is valid from ${cert.validFrom} to ${cert.validTo}, not at ${now.toISOString()} when its period would start`,
    );
  }
  return newTsaRingKey(credentials, atRest, now);
}

/**
 * Revokes a key, in one transaction: its signatures dated from `revocation.at` (default: the
 * change's time) on are not trusted anywhere the ring is, and neither are those of any other role
 * its key material holds (a service key that is also the log key). A role it holds active is
 * handed to a fresh key at once, without the overlap a planned rotation gives, so signing never
 * stops and a compromised key signs on for no one: instances check the ring before they answer
 * what they signed (DeploymentKeyRing.vouches). Undefined when the ring has no such key.
 */
export async function revokeKey(
  ports: RotationPorts,
  kind: RingKeyKind,
  keyId: string,
  revocation: Revocation,
): Promise<Revoked | undefined> {
  const ring = await ports.repo.list();
  const named = ring.find((k) => k.kind === kind && k.keyId === keyId);
  if (!named) return undefined;
  const activeRoles = ring.filter((k) => k.publicKey === named.publicKey && k.state === "active");
  const replacements: Partial<Record<RingKeyKind, StoredRingKey>> = {};
  for (const role of activeRoles) {
    replacements[role.kind] =
      role.kind === "tsa"
        ? await nextTsaKey(ports)
        : await nextKey(ports, role.kind as "service" | "log", {});
  }
  return ports.repo.revoke(kind, keyId, revocation, { now: () => ports.clock.now(), replacements });
}
