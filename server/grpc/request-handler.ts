import type http from "node:http";
import type http2 from "node:http2";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  createConnectRouter,
  type Interceptor,
  type ServiceImplSpec,
} from "@connectrpc/connect";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from "@connectrpc/connect-node";
import { type DirectUnaryOptions, serveDirectly, servesDirectly, type UnaryImpl } from "./direct-unary.js";
import { closeWhenAnswered, failingBody, idleLimited } from "./idle-requests.js";
import type { OpenCalls } from "./open-calls.js";

type Handler = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void;

export interface RequestHandlerOptions {
  /** Services whose unary methods may be served directly (direct-unary.ts). */
  services: ServiceImplSpec[];
  /** Services served by Connect alone (health, reflection). */
  routes: (router: ConnectRouter) => void;
  interceptors: Interceptor[];
  contextValues: (req: http2.Http2ServerRequest) => ContextValues;
  shutdownSignal: AbortSignal;
  readMaxBytes: number;
  /** The calls each client has open (GRPC_MAX_CALLS_PER_CLIENT). */
  openCalls: OpenCalls;
  /** GRPC_CALL_IDLE_TIMEOUT_MS: how long a call may send nothing before ending its requests. */
  callIdleTimeoutMs: number;
}

/**
 * The application's handler: connect-node's connectNodeAdapter (a router by path, Connect's
 * handlers for gRPC, gRPC-Web and Connect, a bare 404 for other paths), except that the unary
 * methods of `services` are served directly when called over binary gRPC (direct-unary.ts). A
 * client with GRPC_MAX_CALLS_PER_CLIENT calls open has one more refused, and a call that sends
 * nothing for GRPC_CALL_IDLE_TIMEOUT_MS ends (idle-requests.ts), each with the status Connect
 * answers in the call's protocol: their request body fails with it.
 */
export function grpcRequestHandler(options: RequestHandlerOptions): Handler {
  const { interceptors, shutdownSignal, readMaxBytes } = options;
  const router = serviceRouter(options.services, { interceptors, shutdownSignal, readMaxBytes });
  const unary = options.services.flatMap((spec) =>
    Object.values(spec.methods).filter((m) => m.kind === "unary"),
  ) as UnaryImpl[];
  options.routes(router);
  const handlers = new Map(router.handlers.map((h) => [h.requestPath, h]));
  const direct = new Map(unary.map((u) => [`/${u.method.parent.typeName}/${u.method.name}`, u]));
  const idleMs = options.callIdleTimeoutMs;
  const directOptions: DirectUnaryOptions = {
    interceptors,
    readMaxBytes,
    acceptCompression: ACCEPT_COMPRESSION,
    shutdownSignal,
    idleMs,
  };
  return (req, res) => {
    const path = req.url.split("?", 2)[0] ?? "";
    const handler = handlers.get(path);
    if (!handler) {
      res.writeHead(404);
      res.end();
      return;
    }
    const values = options.contextValues(req);
    closeWhenAnswered(req);
    const refusal = options.openCalls.enter(req, res);
    if (refusal) {
      serveWithConnect(handler, req, res, values, failingBody(refusal));
      return;
    }
    const viaConnect = (body: AsyncIterable<Uint8Array> = req) =>
      serveWithConnect(handler, req, res, values, idleLimited(body, idleMs));
    const method = direct.get(path);
    if (method && servesDirectly(req)) serveDirectly(method, directOptions, req, res, values, viaConnect);
    else viaConnect();
  };
}

// connectNodeAdapter's default: gzip and brotli, for requests and responses.
const ACCEPT_COMPRESSION = [compressionGzip, compressionBrotli];

/**
 * A Connect router serving every method of `services`, with the settings every listener shares
 * (the gRPC port's and the REST port's, grpc/http1-handler.ts); `settings` may turn protocols off.
 */
export function serviceRouter(
  services: ServiceImplSpec[],
  settings: Pick<
    ConnectRouterOptions,
    "interceptors" | "shutdownSignal" | "readMaxBytes" | "grpc" | "grpcWeb" | "connect"
  >,
): ConnectRouter {
  const router = createConnectRouter({ ...settings, acceptCompression: ACCEPT_COMPRESSION });
  for (const spec of services) {
    for (const m of Object.values(spec.methods)) router.rpc(m.method as never, m.impl as never);
  }
  return router;
}

/** One call through Connect, as connectNodeAdapter serves it; `body` replaces reading the request. */
export function serveWithConnect(
  handler: UniversalHandler,
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
  values: ContextValues,
  body: AsyncIterable<Uint8Array>,
): void {
  const uReq = universalRequestFromNodeRequest(req, res as never, body as never, values);
  handler(uReq)
    .then((uRes) => universalResponseToNodeResponse(uRes, res as never))
    .catch((reason) => {
      if (ConnectError.from(reason).code === Code.Aborted) return;
      console.error(`handler for rpc ${handler.method.name} of ${handler.service.typeName} failed`, reason);
    });
}
