import type http from "node:http";
import type { ContextValues, Interceptor, ServiceImplSpec } from "@connectrpc/connect";
import { type CorsStep, corsForCalls } from "./cors.js";
import { failingBody, idleLimited } from "./idle-requests.js";
import type { OpenCalls } from "./open-calls.js";
import { serveWithConnect, serviceRouter } from "./request-handler.js";

export interface Http1HandlerOptions {
  /** The application's services (svc.v1), the same implementations the gRPC listener serves. */
  services: ServiceImplSpec[];
  /** The gRPC listener's interceptors, in its order: auth, metrics and the error mapping. */
  interceptors: Interceptor[];
  contextValues: (req: http.IncomingMessage) => ContextValues;
  /** The gRPC listener's: a shutdown ends the streams of both listeners. */
  shutdownSignal: AbortSignal;
  readMaxBytes: number;
  /** The gRPC listener's count: GRPC_MAX_CALLS_PER_CLIENT holds over both listeners. */
  openCalls: OpenCalls;
  callIdleTimeoutMs: number;
  /** CORS_ORIGINS, as for REST. */
  corsOrigins: string[];
}

/** Serves `req` when it calls a method of the services; otherwise hands it on with `next`. */
export type Http1Handler = (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void;

/**
 * The services' Connect and gRPC-Web calls over HTTP/1.1, for the REST listener: browsers and
 * `curl` speak HTTP/1.1, and the gRPC listener only HTTP/2 with prior knowledge. Their paths
 * (`/svc.v1.StampService/CreateStamp`) are no REST path. Plain gRPC needs HTTP/2 (trailers on every
 * response) and stays on the gRPC port: here it is 415. Calls count against the same
 * per-client bound and idle deadline as on the gRPC port, and pay the same rate limits (the
 * service charges them).
 */
export function http1RequestHandler(options: Http1HandlerOptions): Http1Handler {
  const { interceptors, shutdownSignal, readMaxBytes, callIdleTimeoutMs } = options;
  const router = serviceRouter(options.services, { interceptors, shutdownSignal, readMaxBytes, grpc: false });
  const handlers = new Map(router.handlers.map((h) => [h.requestPath, h]));
  const corsHeaders: CorsStep = corsForCalls(options.corsOrigins);
  return (req, res, next) => {
    const handler = handlers.get((req.url ?? "").split("?", 2)[0] ?? "");
    if (!handler) {
      next();
      return;
    }
    // As REST's answers: a stamp's text in a JSON body must never be sniffed into HTML or script.
    res.setHeader("X-Content-Type-Options", "nosniff");
    corsHeaders(req, res, () => {
      // A stream may stay silent longer than HTTP_IDLE_TIMEOUT_MS (a WatchStamps with nothing to
      // report): the socket timeout would cut it, as it cuts a stalled upload. Node sets the
      // keep-alive timeout again once the response ends.
      if (handler.method.methodKind !== "unary") req.socket.setTimeout(0);
      const refusal = options.openCalls.enter(req, res);
      const body = refusal ? failingBody(refusal) : idleLimited(req, callIdleTimeoutMs);
      serveWithConnect(handler, req, res, options.contextValues(req), body);
    });
  };
}
