import { Code, ConnectError } from "@connectrpc/connect";

/**
 * The status a call ends with once its signal has aborted: the reason Connect gave (the deadline,
 * the server's shutdown), else CANCELLED (the client reset the stream).
 */
export function abortError(signal: AbortSignal): ConnectError {
  return signal.reason instanceof ConnectError
    ? signal.reason
    : new ConnectError("call cancelled", Code.Canceled);
}
