import type { Config } from "../config.js";
import type { ConnectionCapSettings } from "../ratelimit/connection-cap.js";
import type { OpenCallSettings } from "./open-calls.js";

/** Per-connection limits of the gRPC listener (docs/design.md "Limits"). */
export interface GrpcLimits {
  /** Calls in flight on one connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxConcurrentStreams: number;
  /** Request metadata, uncompressed (SETTINGS_MAX_HEADER_LIST_SIZE); more resets the call. */
  maxHeaderBytes: number;
  /** One request message; a larger one fails the call with RESOURCE_EXHAUSTED. */
  maxMessageBytes: number;
  /** Connections open at once; more are dropped on accept. */
  maxConnections: number;
  /** A connection with no call in flight for this long is closed (GOAWAY). */
  idleTimeoutMs: number;
  /** Connections one client address may hold, as on the REST listener. */
  perClient: ConnectionCapSettings;
  /** Calls one client address may have open over all its connections. */
  callsPerClient: OpenCallSettings;
  /** A call that sends nothing this long before ending its requests fails (DEADLINE_EXCEEDED). */
  callIdleTimeoutMs: number;
}

export function grpcLimits(config: Config): GrpcLimits {
  return {
    maxConcurrentStreams: config.GRPC_MAX_CONCURRENT_STREAMS,
    maxHeaderBytes: config.MAX_HEADER_BYTES,
    maxMessageBytes: config.GRPC_MAX_MESSAGE_BYTES,
    maxConnections: config.MAX_CONNECTIONS,
    idleTimeoutMs: config.GRPC_IDLE_TIMEOUT_MS,
    perClient: {
      MAX_CONNECTIONS_PER_CLIENT: config.MAX_CONNECTIONS_PER_CLIENT,
      TRUSTED_PROXIES: config.TRUSTED_PROXIES,
      IPV6_PREFIX_LENGTH: config.IPV6_PREFIX_LENGTH,
    },
    callsPerClient: {
      GRPC_MAX_CALLS_PER_CLIENT: config.GRPC_MAX_CALLS_PER_CLIENT,
      TRUSTED_PROXIES: config.TRUSTED_PROXIES,
      IPV6_PREFIX_LENGTH: config.IPV6_PREFIX_LENGTH,
    },
    callIdleTimeoutMs: config.GRPC_CALL_IDLE_TIMEOUT_MS,
  };
}
