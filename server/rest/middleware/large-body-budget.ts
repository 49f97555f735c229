import { type ErrorReason, unavailable } from "../../errors.js";

/** Seconds a refused client is told to wait: a large body takes about that long to parse. */
export const LARGE_BODY_RETRY_AFTER_SECONDS = 1;

/** One more large body than MAX_LARGE_BODIES_PER_CLIENT allows from one client (a 429). */
export class TooManyLargeBodies extends Error {
  constructor(readonly allowed: number) {
    super(`at most ${allowed} large JSON bodies at once per client`);
  }
}

const SERVER_BUSY: ErrorReason = "server_busy";

/**
 * What large JSON bodies may hold at once: per client address a number of bodies
 * (`MAX_LARGE_BODIES_PER_CLIENT`), across all clients a number of decoded bytes
 * (`MAX_LARGE_BODY_BYTES_TOTAL`). Each body takes its share through a `LargeBodyShare`.
 */
export class LargeBodyBudget {
  private readonly bodies = new Map<string, number>();
  private heldBytes = 0;

  constructor(
    private readonly perClient: number,
    private readonly totalBytes: number,
  ) {}

  share(client: string, maxJsonBytes: number): LargeBodyShare {
    return new LargeBodyShare(this, client, maxJsonBytes);
  }

  /** Takes one of `client`'s places; throws TooManyLargeBodies when none is free. */
  takePlace(client: string): void {
    const count = this.bodies.get(client) ?? 0;
    if (count >= this.perClient) throw new TooManyLargeBodies(this.perClient);
    this.bodies.set(client, count + 1);
  }

  leavePlace(client: string): void {
    const left = this.bodies.get(client)! - 1;
    if (left === 0) this.bodies.delete(client);
    else this.bodies.set(client, left);
  }

  /** Holds `bytes` more of the total; throws 503 `server_busy` when they do not fit. */
  hold(bytes: number): void {
    if (this.heldBytes + bytes > this.totalBytes) {
      throw unavailable(
        `the server is reading as many large JSON bodies as it holds at once (MAX_LARGE_BODY_BYTES_TOTAL); retry after ${LARGE_BODY_RETRY_AFTER_SECONDS} seconds`,
        SERVER_BUSY,
        LARGE_BODY_RETRY_AFTER_SECONDS,
      );
    }
    this.heldBytes += bytes;
  }

  free(bytes: number): void {
    this.heldBytes -= bytes;
  }
}

/**
 * One body's part of the budget, counted in decoded bytes as they arrive: small while it stays
 * within MAX_JSON_BYTES, then a place of its client's and all its bytes held in the total, until
 * `release` (once its response is done, when its parsed document is no longer needed).
 */
export class LargeBodyShare {
  private bytes = 0;
  private held = 0;
  private large = false;
  private released = false;

  constructor(
    private readonly budget: LargeBodyBudget,
    private readonly client: string,
    private readonly maxJsonBytes: number,
  ) {}

  /** A body whose length says it is large takes its place and all its bytes before it is read. */
  expect(length: number): void {
    if (length > this.maxJsonBytes) this.reserve(length);
  }

  /** Counts `n` more decoded bytes; throws when the body may not grow by them. */
  add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.maxJsonBytes) this.reserve(this.bytes);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.large) this.budget.leavePlace(this.client);
    this.budget.free(this.held);
  }

  private reserve(bytes: number): void {
    if (this.released) return;
    if (!this.large) {
      this.budget.takePlace(this.client);
      this.large = true;
    }
    if (bytes <= this.held) return;
    this.budget.hold(bytes - this.held);
    this.held = bytes;
  }
}
