import type {
  KeyRingRepository,
  Revocation,
  RingClock,
  RingKeyKind,
  StoredRingKey,
} from "./key-ring-repository.js";

/**
 * What one change of the key ring writes, planned from the ring as read under its lock so both
 * store engines write the same thing in one transaction: keys retired (with the end of their
 * period), keys added (active from `at`), keys revoked.
 */
export interface RingChanges {
  retire: { kind: RingKeyKind; keyId: string; notAfter: Date }[];
  add: StoredRingKey[];
  revoke: { kind: RingKeyKind; keyId: string; revokedAt: Date; reason: string }[];
}

/** A rotation at `at`: the kind's active key retired `overlapMs` later, `next` active from `at`. */
export function rotationChanges(
  ring: readonly StoredRingKey[],
  next: StoredRingKey,
  at: Date,
  overlapMs: number,
): RingChanges {
  const active = ring.find((k) => k.kind === next.kind && k.state === "active");
  return {
    retire: active
      ? [{ kind: active.kind, keyId: active.keyId, notAfter: new Date(at.getTime() + overlapMs) }]
      : [],
    add: [{ ...next, notBefore: at }],
    revoke: [],
  };
}

/**
 * How far an instance's estimate of the database's clock may run ahead of it (DatabaseClock: half
 * the round trip it was measured with) before its stamps wait: a revocation's signatures stop
 * counting this long after its time, so a stamp a signer dated up to this much late, whose check
 * of the ring began before the revocation, still falls before it (DeploymentKeyRing.vouches).
 */
export const CLOCK_MARGIN_MS = 1000;

/**
 * The revocation at `at` of the `kind` key `keyId`, undefined when the ring has no such key. Every
 * role its key material holds is revoked (a deployment whose first start registered one key as
 * both service and log key: revoking either must stop both, issue #35), and each role it holds
 * active is handed to its replacement from `at`; the key's period and trust end CLOCK_MARGIN_MS
 * later (or trust from `revocation.at`), and no instance answers what it signs from then on.
 */
export function revocationChanges(
  ring: readonly StoredRingKey[],
  kind: RingKeyKind,
  keyId: string,
  revocation: Revocation,
  replacements: Partial<Record<RingKeyKind, StoredRingKey>>,
  at: Date,
): RingChanges | undefined {
  const named = ring.find((k) => k.kind === kind && k.keyId === keyId);
  if (!named) return undefined;
  const roles = ring.filter((k) => k.publicKey === named.publicKey);
  const active = roles.filter((k) => k.state === "active");
  const end = new Date(at.getTime() + CLOCK_MARGIN_MS);
  return {
    retire: active.map((k) => ({ kind: k.kind, keyId: k.keyId, notAfter: end })),
    add: active.map((k) => {
      const next = replacements[k.kind];
      if (!next)
        throw new Error(`the key ring changed meanwhile (${k.kind} key ${k.keyId} is active): run it again`);
      return { ...next, notBefore: at };
    }),
    revoke: roles.map((k) => ({
      kind: k.kind,
      keyId: k.keyId,
      revokedAt: revocation.at ?? end,
      reason: revocation.reason,
    })),
  };
}

/** The ring's keys as `changes` leave them: what a change returns to its caller. */
export function changedKeys(ring: readonly StoredRingKey[], changes: RingChanges): StoredRingKey[] {
  const key = (k: { kind: RingKeyKind; keyId: string }) => `${k.kind}:${k.keyId}`;
  const retired = new Map(changes.retire.map((r) => [key(r), r]));
  const revoked = new Map(changes.revoke.map((r) => [key(r), r]));
  return [...ring, ...changes.add].flatMap((k): StoredRingKey[] => {
    const r = retired.get(key(k));
    const v = revoked.get(key(k));
    if (!r && !v) return [];
    return [
      {
        ...k,
        ...(r && { state: "retired" as const, notAfter: r.notAfter }),
        ...(v && { state: "revoked" as const, revokedAt: v.revokedAt, revocationReason: v.reason }),
      },
    ];
  });
}

/** Plans a change from the ring as read under its lock, at the change's time. */
export type RingPlan = (ring: StoredRingKey[], at: Date) => RingChanges | undefined;

/**
 * A store engine's one transaction of a ring change: takes the ring's lock, reads `now()` and the
 * ring under it, writes what `plan` returns, and gives back the ring as read, the changes and time.
 */
export type ApplyRingChange = (
  now: RingClock,
  plan: RingPlan,
) => Promise<{ ring: StoredRingKey[]; changes?: RingChanges; at: Date }>;

/** `KeyRingRepository.rotate` and `revoke` on an engine's ApplyRingChange. */
export function ringChangesOn(apply: ApplyRingChange): Pick<KeyRingRepository, "rotate" | "revoke"> {
  return {
    async rotate(next, { now, overlapMs }) {
      const { ring, changes } = await apply(now, (keys, at) => rotationChanges(keys, next, at, overlapMs));
      return { active: changes!.add[0]!, retired: changedKeys(ring, changes!)[0] };
    },
    async revoke(kind, keyId, revocation, { now, replacements }) {
      const { ring, changes, at } = await apply(now, (keys, time) =>
        revocationChanges(keys, kind, keyId, revocation, replacements, time),
      );
      return changes && { revoked: changedKeys(ring, changes), activated: changes.add, at };
    },
  };
}
