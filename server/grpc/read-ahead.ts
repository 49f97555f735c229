/**
 * Reads `source` ahead of its consumer and hands over, at each step, every item read meanwhile (at
 * least one): what a client sent while the previous items were being worked on arrives as one
 * group. At most `window` items wait unconsumed; past that reading stops, so a consumer that stops
 * consuming stops the reading, and the source's own flow control (HTTP/2) holds the sender back.
 * A failure of the source is thrown after the items read before it; a consumer that stops early
 * (return or throw) stops the reading.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, window: number): AsyncGenerator<T[]> {
  const iterator = source[Symbol.asyncIterator]();
  let waiting: T[] = [];
  let ended = false;
  let stopped = false;
  let failure: { error: unknown } | null = null;
  let wakeConsumer: (() => void) | null = null;
  let wakeReader: (() => void) | null = null;
  const wake = (resolve: (() => void) | null) => resolve?.();

  const reading = (async () => {
    try {
      while (!stopped) {
        if (waiting.length >= window) {
          await new Promise<void>((resolve) => (wakeReader = resolve));
          continue;
        }
        const next = await iterator.next();
        if (next.done) break;
        waiting.push(next.value);
        wake(wakeConsumer);
      }
    } catch (error) {
      failure = { error };
    } finally {
      ended = true;
      wake(wakeConsumer);
    }
  })();

  try {
    for (;;) {
      if (waiting.length === 0) {
        if (ended) break;
        await new Promise<void>((resolve) => (wakeConsumer = resolve));
        continue;
      }
      const group = waiting;
      waiting = [];
      wake(wakeReader);
      yield group;
    }
    await reading;
    if (failure) throw (failure as { error: unknown }).error;
  } finally {
    stopped = true;
    wake(wakeReader);
  }
}
