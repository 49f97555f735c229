import type { Http2Server } from "node:http2";

/**
 * Closes (GOAWAY) a connection that has had no call in flight for `idleMs`, so silent connections do
 * not hold MAX_CONNECTIONS slots forever; clients reconnect on their next call. Node's server-wide
 * timeout would also destroy a connection whose only call is a quiet stream (a WatchStamps with
 * nothing to report), so each session counts its calls and decides on its own timer.
 */
export function closeIdleSessions(server: Http2Server, idleMs: number): void {
  server.on("session", (session) => {
    let calls = 0;
    session.on("stream", (stream) => {
      calls++;
      stream.once("close", () => {
        calls--;
        // The timer fires once per quiet spell and may have fired during the call: count from now.
        if (calls === 0 && !session.destroyed) session.setTimeout(idleMs);
      });
    });
    session.on("timeout", () => {
      if (calls === 0) session.close();
    });
    session.setTimeout(idleMs);
  });
}
