import type http2 from "node:http2";

/** gRPC status codes this rewrite reads and writes. */
const INTERNAL = "13";
const INVALID_ARGUMENT = "3";

/**
 * The messages connect-es gives a request it cannot read: bytes that do not parse as the method's
 * request type, and a compressed message without `grpc-encoding`.
 */
const CALLER_FAULTS = [
  /^parse binary: /,
  /^received compressed envelope, but do not know how to decompress$/,
];

/**
 * connect-es ends a call whose request message does not parse with INTERNAL, before any
 * interceptor sees it. The fault is the caller's: stamp.proto ("Malformed requests") promises
 * INVALID_ARGUMENT, so INTERNAL keeps meaning a fault of the server. Rewrites the trailer status of
 * exactly those calls (the message stays as connect-es wrote it).
 */
export function withCallerFaultsAsInvalidArgument(res: http2.Http2ServerResponse): void {
  const addTrailers = res.addTrailers.bind(res);
  res.addTrailers = (trailers) => {
    const message = trailers["grpc-message"];
    const fault =
      trailers["grpc-status"] === INTERNAL &&
      typeof message === "string" &&
      CALLER_FAULTS.some((pattern) => pattern.test(decodeURIComponent(message)));
    addTrailers(fault ? { ...trailers, "grpc-status": INVALID_ARGUMENT } : trailers);
  };
}
