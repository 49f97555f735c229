import type http from "node:http";
import { cors as connectCors } from "@connectrpc/connect";
import cors from "cors";

/** What stamp.proto's calls read besides the protocols' own headers: the key and the batch id. */
const REQUEST_HEADERS = ["Authorization", "X-Api-Key", "X-Batch-Id"];

/**
 * What a page may read besides the protocols' own headers: the wait of a refusal (as gRPC's
 * pushback and as HTTP's Retry-After), the bulk items budget and the batch id (docs/grpc.md); a
 * Connect unary call sends its trailers as `trailer-` headers.
 */
const RESPONSE_HEADERS = [
  "Grpc-Retry-Pushback-Ms",
  "Retry-After",
  "X-Batch-Id",
  "X-Ratelimit-Items-Limit",
  "X-Ratelimit-Items-Remaining",
  "X-Ratelimit-Items-Reset",
  "Trailer-X-Ratelimit-Items-Limit",
  "Trailer-X-Ratelimit-Items-Remaining",
  "Trailer-X-Ratelimit-Items-Reset",
];

export type CorsStep = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

/**
 * CORS for the Connect and gRPC-Web calls served on the REST listener, for the origins REST allows
 * (CORS_ORIGINS; `*` allows any): a preflight is answered with the methods and request headers
 * Connect and gRPC-Web send (connect-es's `cors` lists) and the key's; every answer exposes the
 * status headers a gRPC-Web client reads (`grpc-status`, `grpc-message`) and ours.
 */
export function corsForCalls(origins: string[]): CorsStep {
  return cors({
    origin: origins.includes("*") ? "*" : origins,
    methods: [...connectCors.allowedMethods],
    allowedHeaders: [...connectCors.allowedHeaders, ...REQUEST_HEADERS],
    exposedHeaders: [...connectCors.exposedHeaders, ...RESPONSE_HEADERS],
  });
}
