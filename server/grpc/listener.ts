import { setMaxListeners } from "node:events";
import http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Readiness } from "../health/readiness.js";
import { capConnectionsPerClient } from "../ratelimit/connection-cap.js";
import { withCallerFaultsAsInvalidArgument } from "./caller-faults.js";
import { closeIdleSessions } from "./idle-sessions.js";
import type { GrpcLimits } from "./limits.js";
import { grpcStartupResponder } from "./startup.js";
import { withPlainStatusMessages } from "./status-message.js";

type Handler = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void;

/**
 * The gRPC listener (HTTP/2 cleartext) with its connection limits. It answers as starting
 * (grpc/startup.ts) from the moment it exists, so main.ts can bind its port before migrations run,
 * until `handOver` gives it the application's handler: the socket stays open across the swap.
 */
export class GrpcListener {
  readonly server: http2.Http2Server;
  private readonly stopping = new AbortController();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private handler: Handler;

  constructor(
    limits: GrpcLimits,
    private readonly readiness: Readiness,
  ) {
    // Every call in flight listens on it (Connect links each call's signal to it): no leak past 10.
    setMaxListeners(0, this.stopping.signal);
    this.handler = grpcStartupResponder(readiness, {
      shutdownSignal: this.shutdownSignal,
      readMaxBytes: limits.maxMessageBytes,
    });
    const settings = {
      maxConcurrentStreams: limits.maxConcurrentStreams,
      maxHeaderListSize: limits.maxHeaderBytes,
    };
    this.server = http2.createServer({ settings }, (req, res) => {
      withPlainStatusMessages(res);
      withCallerFaultsAsInvalidArgument(res);
      this.handler(req, res);
    });
    this.server.maxConnections = limits.maxConnections;
    capConnectionsPerClient(this.server, limits.perClient);
    closeIdleSessions(this.server, limits.idleTimeoutMs);
    // Tracked from the first connection: one opened while starting must be closed by a shutdown too.
    this.server.on("session", (session) => {
      this.sessions.add(session);
      session.once("close", () => this.sessions.delete(session));
    });
  }

  /** Aborted when a shutdown ends the calls still running; every handler's calls are linked to it. */
  get shutdownSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /** New calls go to `handler`; calls already running finish where they started. */
  handOver(handler: Handler): void {
    this.handler = handler;
  }

  /**
   * Reports NOT_SERVING, ends streaming calls, stops accepting connections and lets unary calls in
   * flight finish for up to `graceMs` before closing what is left.
   */
  async shutdown(graceMs: number): Promise<void> {
    this.readiness.set("stopping");
    // One turn of the event loop lets watchers write NOT_SERVING before their streams end.
    await new Promise((resolve) => setImmediate(resolve));
    // The reason every running call's signal carries: streams still open end with UNAVAILABLE.
    this.stopping.abort(new ConnectError("server is shutting down", Code.Unavailable));
    const { server, sessions } = this;
    const closed = server.listening
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    for (const s of sessions) s.close();
    const timer = setTimeout(() => {
      for (const s of sessions) s.destroy();
    }, graceMs);
    await closed;
    clearTimeout(timer);
  }
}
