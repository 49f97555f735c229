import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { ServiceError } from "../errors.js";
import type { Logger } from "../logger.js";
import { RateLimitedError } from "../ratelimit/rate-limited.js";
import { abortError } from "./abort.js";
import { toConnectError } from "./errors.js";

/**
 * Maps domain errors to gRPC statuses, for unary calls and for errors raised while a response
 * stream is being produced; anything unexpected becomes INTERNAL without internals.
 */
export function errorInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      const res = await next(req);
      if (!res.stream) return res;
      return { ...res, message: mapStreamErrors(res.message, req.signal, logger) };
    } catch (err) {
      throw statusOf(err, req.signal, logger);
    }
  };
}

async function* mapStreamErrors<T>(
  messages: AsyncIterable<T>,
  signal: AbortSignal,
  logger: Logger,
): AsyncIterable<T> {
  try {
    yield* messages;
  } catch (err) {
    throw statusOf(err, signal, logger);
  }
}

/**
 * A client that goes away (resets the stream, drops the connection) makes whatever the call was
 * doing fail: reading a request it never half-closed ends in Node's "Premature close". That is the
 * client's cancellation, not a fault of the server: the call ends as its signal says (CANCELLED,
 * or the deadline or shutdown that aborted it), logged at debug, not INTERNAL at error level.
 */
function statusOf(err: unknown, signal: AbortSignal, logger: Logger): ConnectError {
  const known = err instanceof ConnectError || err instanceof ServiceError || err instanceof RateLimitedError;
  if (signal.aborted && !known) {
    logger.debug({ err }, "gRPC call ended by its client");
    return abortError(signal);
  }
  return toConnectError(err, logger);
}
