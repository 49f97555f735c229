import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { type Metrics, secondsSince } from "../metrics/metrics.js";

// The canonical gRPC names (Connect spells Canceled with one L).
const codeNames: Record<Code, string> = {
  [Code.Canceled]: "CANCELLED",
  [Code.Unknown]: "UNKNOWN",
  [Code.InvalidArgument]: "INVALID_ARGUMENT",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "ALREADY_EXISTS",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
  [Code.FailedPrecondition]: "FAILED_PRECONDITION",
  [Code.Aborted]: "ABORTED",
  [Code.OutOfRange]: "OUT_OF_RANGE",
  [Code.Unimplemented]: "UNIMPLEMENTED",
  [Code.Internal]: "INTERNAL",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DataLoss]: "DATA_LOSS",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
};

const codeOf = (err: unknown) => codeNames[ConnectError.from(err).code];

/**
 * Counts and times every call by method and final status: unary calls when they answer, streams
 * when their last message is produced, they fail, or the client goes away (CANCELLED). Installed
 * outside the error mapping, so it sees the status the client gets.
 */
export function metricsInterceptor(metrics: Metrics): Interceptor {
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const start = performance.now();
    const done = (code: string) => {
      metrics.grpcCalls.inc({ method, code });
      metrics.grpcDuration.observe({ method, code }, secondsSince(start));
    };
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (err) {
      done(codeOf(err));
      throw err;
    }
    if (!res.stream) {
      done("OK");
      return res;
    }
    return { ...res, message: observeStream(res.message, done) };
  };
}

async function* observeStream<T>(messages: AsyncIterable<T>, done: (code: string) => void): AsyncIterable<T> {
  let code = "CANCELLED";
  try {
    yield* messages;
    code = "OK";
  } catch (err) {
    code = codeOf(err);
    throw err;
  } finally {
    done(code);
  }
}
