import { Code, ConnectError } from "@connectrpc/connect";
import { APIError, APITimeoutError, APIUserAbortError, StampdError } from "../internal/errors.js";

/**
 * The HTTP status each gRPC code stands for, as the server maps its errors (stamp.proto, Error
 * mapping), so that one class answers a failure on either transport: `catch (e) { if (e
 * instanceof RateLimitError) … }` whether the call was REST or gRPC.
 */
const httpStatus: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.OutOfRange]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 409,
  [Code.Aborted]: 409,
  [Code.ResourceExhausted]: 429,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
};

/**
 * The SDK's error for a failed gRPC call: the `APIError` class of the status the code stands for
 * (`RateLimitError` for RESOURCE_EXHAUSTED, with `retryAfter` from `grpc-retry-pushback-ms`),
 * `APITimeoutError` for DEADLINE_EXCEEDED, `APIUserAbortError` for CANCELLED. `code` is the gRPC
 * code's name (`resource_exhausted`), `headers` the call's metadata (trailers included), `cause`
 * the Connect error. An SDK error passes through unchanged.
 *
 * @example
 * try { await client.grpc.batchStamp(items) } catch (e) { if (e instanceof RateLimitError) console.log(e.retryAfter) }
 */
export function grpcError(err: unknown): StampdError {
  if (err instanceof StampdError) return err;
  const connect = ConnectError.from(err);
  let error: StampdError;
  if (connect.code === Code.Canceled) error = new APIUserAbortError();
  else if (connect.code === Code.DeadlineExceeded) error = new APITimeoutError();
  else {
    const status = httpStatus[connect.code] ?? 500;
    const code = Code[connect.code]?.replace(/[A-Z]/g, (c, at) => `${at ? "_" : ""}${c.toLowerCase()}`);
    error = APIError.generate(status, { detail: connect.rawMessage, code }, connect.metadata);
  }
  error.cause = connect;
  return error;
}
