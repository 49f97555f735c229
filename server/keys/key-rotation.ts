import type { KeyObject } from "node:crypto";
import type { RingKeyKind } from "../../core/key-ring.js";
import type { AtRestCipher } from "./at-rest-cipher.js";
import { generateEd25519, newRingKey } from "./key-ring.js";
import type { KeyRingRepository, Revocation, StoredRingKey } from "./key-ring-repository.js";

export interface RotationPorts {
  repo: KeyRingRepository;
  atRest: AtRestCipher;
  now: Date;
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
  kind: Extract<RingKeyKind, "service" | "log">,
  options: RotateOptions = {},
): Promise<Rotated> {
  const { repo, atRest, now, overlapMs } = ports;
  const current = (await repo.list()).find((k) => k.kind === kind && k.state === "active");
  const origin = kind === "log" ? (options.origin ?? current?.origin ?? undefined) : undefined;
  if (kind === "log" && !origin) throw new Error("a log key needs an origin: give --origin");
  const privateKey = options.privateKey ?? generateEd25519();
  const next = newRingKey(kind, privateKey, atRest, { notBefore: now, origin });
  const retired = await repo.rotate(next, new Date(now.getTime() + overlapMs));
  return { active: next, retired };
}

/**
 * Revokes a key: its signatures dated from `revocation.at` on are not trusted anywhere the ring
 * is. An active key is first rotated away (a fresh key takes over), so signing never stops.
 */
export async function revokeKey(
  ports: RotationPorts,
  kind: Extract<RingKeyKind, "service" | "log">,
  keyId: string,
  revocation: Revocation,
): Promise<{ revoked: boolean; rotated?: Rotated }> {
  const key = (await ports.repo.list()).find((k) => k.kind === kind && k.keyId === keyId);
  if (!key) return { revoked: false };
  // A compromised key must not sign on through the overlap a planned rotation gives.
  const rotated = key.state === "active" ? await rotateKey({ ...ports, overlapMs: 0 }, kind) : undefined;
  return { revoked: await ports.repo.revoke(kind, keyId, revocation), rotated };
}
