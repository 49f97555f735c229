import type { Clock } from "../clock.js";
import { conflict } from "../errors.js";
import type { IdempotencyId, IdempotencyRepository, StoredResponse } from "./idempotency-repository.js";

/** How long a key is remembered (spec: Idempotency). */
export const idempotencyTtlMs = 24 * 3_600_000;
/** How long a first request holds its key before a retry may take over (it may have crashed). */
export const defaultLockMs = 300_000;
/** Expired records purged alongside each new reservation, which keeps the table bounded. */
const purgePerReservation = 100;

export type Begin = { outcome: "proceed" } | { outcome: "replay"; response: StoredResponse };

/**
 * Idempotency-Key semantics for any operation: the first request with a key reserves it; a retry
 * with the same fingerprint replays the stored response, with a different one is refused (409
 * `idempotency_key_reused`), and while the first still runs is refused (409 `idempotency_key_in_use`).
 */
export class Idempotency {
  constructor(
    private readonly repo: IdempotencyRepository,
    private readonly clock: Clock,
    private readonly lockMs = defaultLockMs,
  ) {}

  async begin(id: IdempotencyId, fingerprint: string): Promise<Begin> {
    const now = this.clock.now();
    await this.repo.purgeExpired(now, purgePerReservation);
    const lockedUntil = new Date(now.getTime() + this.lockMs);
    const expiresAt = new Date(now.getTime() + idempotencyTtlMs);
    const result = await this.repo.reserve(
      { ...id, fingerprint, response: null, lockedUntil, expiresAt },
      now,
    );
    if (result.reserved) return { outcome: "proceed" };
    const existing = result.existing;
    if (existing.fingerprint !== fingerprint) {
      throw conflict("Idempotency-Key was already used with a different request", "idempotency_key_reused");
    }
    if (existing.response) return { outcome: "replay", response: existing.response };
    const abandoned =
      existing.lockedUntil <= now && (await this.repo.relock(id, existing.lockedUntil, lockedUntil));
    if (abandoned) return { outcome: "proceed" };
    throw conflict("a request with this Idempotency-Key is still being processed", "idempotency_key_in_use");
  }

  /** Keeps the response for retries. */
  complete(id: IdempotencyId, response: StoredResponse): Promise<void> {
    return this.repo.complete(id, response);
  }

  /** Frees the key after a failure not worth replaying (a 5xx, no response), so a retry runs again. */
  release(id: IdempotencyId): Promise<void> {
    return this.repo.release(id);
  }
}
