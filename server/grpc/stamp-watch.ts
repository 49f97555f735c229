import { Code, ConnectError } from "@connectrpc/connect";
import { parseContentHashText } from "../../core/content-hash.js";
import type { AnyDomainEvent, EventBus } from "../events/bus.js";
import { abortError } from "./abort.js";
import type { WatchFilter } from "./watch-filter.js";

export interface WatchOptions {
  filter: WatchFilter;
  /** Events that may wait for a slow reader before the call ends with RESOURCE_EXHAUSTED. */
  capacity: number;
  signal: AbortSignal;
}

/**
 * The ids of the stamps a WatchStamps call sends, in the order their events happened: created,
 * confirmed, anchored, whichever transport or scheduler caused them. The bus delivers synchronously
 * and never waits for a reader, so the queue is bounded: a reader that falls `capacity` events
 * behind is dropped with RESOURCE_EXHAUSTED instead of holding ever more memory. Ends (and
 * unsubscribes) when the call's signal aborts.
 */
export async function* watchedStampIds(events: EventBus, options: WatchOptions): AsyncGenerator<string> {
  const { filter, capacity, signal } = options;
  const queue: string[] = [];
  let overflowed = false;
  let wake: (() => void) | undefined;
  const unsubscribe = events.subscribe((event) => {
    const id = stampIdOf(event);
    if (id === undefined || !mayMatch(filter, event)) return;
    if (queue.length < capacity) queue.push(id);
    else {
      overflowed = true;
      queue.length = 0;
      unsubscribe();
    }
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);
  try {
    for (;;) {
      if (signal.aborted) throw abortError(signal);
      if (overflowed) throw tooSlow(capacity);
      const next = queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}

function stampIdOf(event: AnyDomainEvent): string | undefined {
  switch (event.type) {
    case "stamp_created":
      return event.data.id;
    case "stamp_confirmed":
    case "stamp_anchored":
      return event.data.stampId;
    default:
      return undefined;
  }
}

/**
 * A stamp_created event carries everything the filter looks at, so a stamp that cannot match is
 * never read from the store; a status change is judged on the stamp as read.
 */
function mayMatch(filter: WatchFilter, event: AnyDomainEvent): boolean {
  if (event.type !== "stamp_created") return true;
  const { algorithm } = parseContentHashText(event.data.contentHash);
  return filter({ status: "pending", algorithm, metadata: event.data.metadata });
}

function tooSlow(capacity: number): ConnectError {
  return new ConnectError(
    `WatchStamps: the client fell more than ${capacity} stamp events behind; watch again and fill the gap with GetStamp`,
    Code.ResourceExhausted,
  );
}
