import type { Interceptor } from "@connectrpc/connect";
import type { Logger } from "../logger.js";
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
      return { ...res, message: mapStreamErrors(res.message, logger) };
    } catch (err) {
      throw toConnectError(err, logger);
    }
  };
}

async function* mapStreamErrors<T>(messages: AsyncIterable<T>, logger: Logger): AsyncIterable<T> {
  try {
    yield* messages;
  } catch (err) {
    throw toConnectError(err, logger);
  }
}
