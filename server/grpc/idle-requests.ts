import http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";

/** The error a call whose client sent nothing for `idleMs` ends with. */
export function silentCall(idleMs: number): ConnectError {
  return new ConnectError(
    `no request data for ${idleMs} ms (GRPC_CALL_IDLE_TIMEOUT_MS): send within it, or end the request stream`,
    Code.DeadlineExceeded,
  );
}

/**
 * A call's request body, failing with DEADLINE_EXCEEDED (`silentCall`) when the reader waits
 * `idleMs` for a chunk that does not come. A call that sends nothing held its memory for good: 100
 * silent StreamStamps calls were still open after 400 s (issue #35 item 4). Only a wait counts: a
 * reader busy with what it has does not run the clock, and once the client ends its requests
 * (every unary call, a WatchStamps once it has asked) there is nothing left to wait for.
 */
export async function* idleLimited(
  source: AsyncIterable<Uint8Array>,
  idleMs: number,
): AsyncGenerator<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  let silent = false;
  try {
    for (;;) {
      const pending = chunks.next();
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<"expired">((resolve) => {
        timer = setTimeout(() => resolve("expired"), idleMs);
      });
      const next = await Promise.race([pending, expired]).finally(() => clearTimeout(timer));
      if (next === "expired") {
        silent = true;
        // Settled when the stream is closed (`closeWhenAnswered`); nobody waits for it any more.
        pending.catch(() => {});
        throw silentCall(idleMs);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Returning the iterator destroys the request, which would reset the call before its status
    // is written: a silent call's stream is closed once it is answered instead.
    if (!silent) await chunks.return?.();
  }
}

/** A request body that fails with `error` before anything is read: the call ends with it. */
// biome-ignore lint/correctness/useYield: it fails before yielding, by design.
export async function* failingBody(error: ConnectError): AsyncGenerator<Uint8Array> {
  throw error;
}

/**
 * Once a call is answered, a request side still open (a silent call, a refused one, a stream whose
 * client had more to send) is closed with RST_STREAM NO_ERROR (RFC 9113 section 8.1): its stream
 * would otherwise stay open, counted against the connection's streams and its client's calls.
 */
export function closeWhenAnswered(req: http2.Http2ServerRequest): void {
  const { stream } = req;
  const close = () => {
    if (!stream.destroyed && !stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
  };
  // The response's trailers (the gRPC status) are sent on `wantTrailers`, after the stream's
  // `finish`; closing is left to the next turn, once the response has queued them.
  stream.once("wantTrailers", () => setImmediate(close));
}
