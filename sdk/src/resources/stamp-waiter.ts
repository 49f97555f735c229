import type { components } from "../../../gen/openapi/types.js";
import { APIUserAbortError, StampUnreachableStateError, StampWaitTimeoutError } from "../internal/errors.js";
import type { StampdSocket } from "../ws/client.js";

type StampResponse = components["schemas"]["StampResponse"];

/** The states `waitFor` can wait for; `pending` is where every stamp starts. */
export type WaitUntil = Exclude<components["schemas"]["StampStatus"], "pending">;

export interface WaitForOptions {
  /** `"confirmed"` (the default: its batch is signed, the proof is ready) or `"anchored"`. */
  until?: WaitUntil | undefined;
  /** Milliseconds to wait in all (default 600000); `Infinity` waits as long as it takes. */
  timeout?: number | undefined;
  /** Aborts the wait (rejects with APIUserAbortError). */
  signal?: AbortSignal | undefined;
  /** Milliseconds between two reads of the stamp when no WebSocket carries its events (default 2000). */
  pollInterval?: number | undefined;
  /**
   * The stamp as the caller just read it (`stamps.create()`'s answer): the wait starts from it
   * instead of reading it again, and returns it at once when it is already there.
   */
  stamp?: StampResponse | undefined;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
const DEFAULT_POLL_INTERVAL_MS = 2000;
/** A socket that has not confirmed the subscription by then is given up for polling. */
export const WAIT_SUBSCRIBE_TIMEOUT_MS = 5000;

const rank: Record<StampResponse["status"], number> = { pending: 0, confirmed: 1, anchored: 2 };

/** What `waitForStamp` needs of the client: reading the stamp, and a socket when one can be had. */
export interface WaitDeps {
  get(stampId: string, signal: AbortSignal): Promise<StampResponse>;
  openSocket?: () => StampdSocket;
}

/**
 * Resolves with the stamp once its status reaches `until`. The stamp is read first, unless the
 * caller gives it (a stamp already there needs no socket); then the `stamp` channel is subscribed,
 * and each `stamp_confirmed` or `stamp_anchored` event of the stamp triggers a read (an anchor
 * event alone does not say whether every anchor is in). Events come before polling: once
 * subscribed, the stamp is read again only on an event, or after `pollInterval` if none came, which
 * covers a change between the last read and the subscription without a read that most waits do
 * not need (each read is charged to the caller's rate limit). Without a socket (none configured,
 * refused, or lost) it reads the stamp every `pollInterval`.
 */
export async function waitForStamp(
  deps: WaitDeps,
  stampId: string,
  options: WaitForOptions = {},
): Promise<StampResponse> {
  const until = options.until ?? "confirmed";
  const deadline = new Deadline(options.timeout ?? DEFAULT_WAIT_TIMEOUT_MS, options.signal);
  const wake = new Wake();
  let socket: StampdSocket | undefined;
  let last: StampResponse | undefined = options.stamp;
  try {
    for (let read = last === undefined; ; read = true) {
      if (read || !last) last = await deadline.run(deps.get(stampId, deadline.signal));
      if (rank[last.status] >= rank[until]) return last;
      if (until === "anchored" && !canBeAnchored(last)) throw new StampUnreachableStateError(last, until);
      let untilEvent = wake.socketLive === true;
      if (!socket && deps.openSocket && wake.socketLive === undefined) {
        socket = await subscribed(deps.openSocket, stampId, wake, deadline);
        untilEvent = false; // the first wait also covers a change before the subscription
      }
      await deadline.run(wake.next(untilEvent ? Number.POSITIVE_INFINITY : pollIntervalOf(options)));
    }
  } catch (err) {
    if (deadline.timedOut) throw new StampWaitTimeoutError(stampId, until, last);
    throw err;
  } finally {
    deadline.dispose();
    socket?.close();
  }
}

function pollIntervalOf(options: WaitForOptions): number {
  return options.pollInterval ?? DEFAULT_POLL_INTERVAL_MS;
}

/**
 * A stamp stays `confirmed` for good when it requested no anchor or one of them failed or is
 * `unavailable` on the deployment (StampStatus in the spec): waiting for `anchored` is then vain.
 */
function canBeAnchored(stamp: StampResponse): boolean {
  return (
    stamp.anchors.length > 0 && stamp.anchors.every((a) => a.status === "pending" || a.status === "confirmed")
  );
}

/** A socket subscribed to the stamp's events, or undefined when none could be had. */
async function subscribed(
  open: () => StampdSocket,
  stampId: string,
  wake: Wake,
  deadline: Deadline,
): Promise<StampdSocket | undefined> {
  let socket: StampdSocket;
  try {
    socket = open();
  } catch {
    wake.socketLive = false; // no WebSocket class here (Node 20 without `ws`)
    return undefined;
  }
  // The iterators exist before the subscription, so an event right after it is kept.
  for (const type of ["stamp_confirmed", "stamp_anchored"] as const) {
    void (async () => {
      for await (const event of socket.events(type)) if (event.data.stampId === stampId) wake.notify();
    })().catch(() => {});
  }
  void socket.closed.then(() => {
    wake.socketLive = false;
    wake.notify();
  });
  try {
    await deadline.run(socket.subscribe("stamp", { stamp_id: stampId }));
    wake.socketLive = true;
    return socket;
  } catch (err) {
    socket.close();
    wake.socketLive = false;
    if (deadline.signal.aborted) throw err;
    return undefined; // refused, not a stampd endpoint, or too slow: poll instead
  }
}

/** Wakes the waiting loop when an event of the stamp arrives or the socket goes away. */
class Wake {
  /** undefined until a socket was tried; then whether it still carries the stamp's events. */
  socketLive: boolean | undefined;
  private pending = false;
  private resolve: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.resolve?.();
  }

  /** Resolves at the next notification (or one since the last call), or after `ms`. */
  next(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      const self = this;
      function done() {
        clearTimeout(timer);
        self.pending = false;
        self.resolve = undefined;
        resolve();
      }
      this.resolve = done;
    });
  }
}

/** The overall timeout and the caller's signal, as one signal and a race for each step. */
class Deadline {
  readonly signal: AbortSignal;
  timedOut = false;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, this.controller.signal])
      : this.controller.signal;
    if (Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort();
      }, timeoutMs);
    }
  }

  /** `step`, unless the deadline passes or the caller aborts first. */
  run<T>(step: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(new APIUserAbortError());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new APIUserAbortError());
      this.signal.addEventListener("abort", onAbort, { once: true });
      step.then(resolve, reject).finally(() => this.signal.removeEventListener("abort", onAbort));
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
