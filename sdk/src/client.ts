import type { Transport } from "@connectrpc/connect";
import { StampdGrpc } from "./grpc/client.js";
import { StampdError } from "./internal/errors.js";
import { createHttpClient } from "./internal/http.js";
import { ApiCore } from "./internal/resource.js";
import { DEFAULT_MAX_RETRIES, type RetryListener } from "./internal/retry.js";
import { Explorer } from "./resources/explorer.js";
import { Fingerprints } from "./resources/fingerprints.js";
import { Hash } from "./resources/hash.js";
import { Identities } from "./resources/identities.js";
import { Log } from "./resources/log.js";
import { Presets } from "./resources/presets.js";
import { Service } from "./resources/service.js";
import { WAIT_SUBSCRIBE_TIMEOUT_MS } from "./resources/stamp-waiter.js";
import { Stamps } from "./resources/stamps.js";
import { Vault } from "./resources/vault.js";
import { Verify } from "./resources/verify.js";
import { StampdSocket, type StampdSocketOptions } from "./ws/client.js";
import type { WebSocketConstructor } from "./ws/socket-like.js";

/** Milliseconds one attempt of a REST call may take, body included, unless a call says otherwise. */
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface ClientOptions {
  /** The REST address, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API key (`svc_live_…` or `svc_test_…`), sent as `Authorization: Bearer` everywhere. */
  apiKey?: string | undefined;
  /** The gRPC address, e.g. `http://localhost:50051`; needed for `client.grpc` unless `grpcTransport` is given. */
  grpcUrl?: string | undefined;
  /** A Connect transport for `client.grpc` (browsers: a gRPC-web transport). */
  grpcTransport?: Transport | undefined;
  /** The WebSocket endpoint; default `baseUrl` with ws(s): and the path `/ws`. */
  wsUrl?: string | undefined;
  /**
   * The WebSocket class of `client.ws()` and `stamps.waitFor()` (default the global one). On
   * Node 20, which has none, pass `WebSocket` from the `ws` package; without one, `waitFor` polls.
   */
  WebSocket?: WebSocketConstructor | undefined;
  /**
   * The fetch to use (default the global one): tests and proxies inject theirs here. On Node an
   * upload's request has `redirect: "error"`, which keeps Node's fetch from holding a copy of the
   * whole body: a fetch that makes a request anew must keep it.
   */
  fetch?: typeof globalThis.fetch | undefined;
  /** Retries of a failed REST call, and of a unary gRPC call refused with pushback (default 2). */
  maxRetries?: number | undefined;
  /**
   * Called before each wait between two attempts of a REST or unary gRPC call, with the answer
   * retried and the wait: a program can tell its user that a rate limit is being waited out
   * (`stampd` prints "rate limited (anonymous tier): waiting 4 s; a key raises the limit").
   *
   * @example
   * createClient({ baseUrl, onRetry: ({ error, delayMs }) => console.error(`${error.message}: retrying in ${delayMs} ms`) });
   */
  onRetry?: RetryListener | undefined;
  /** Milliseconds per REST attempt (default 60000). */
  timeout?: number | undefined;
  /** Headers sent with every REST request. */
  headers?: Record<string, string> | undefined;
}

/** Options of `client.ws()`: those of `StampdSocket` without the address and key the client knows. */
export type ClientSocketOptions = Omit<StampdSocketOptions, "url" | "apiKey"> & { url?: string | undefined };

/**
 * The stampd client: REST resources, a gRPC client and WebSocket connections sharing one
 * configuration.
 *
 * @example
 * const stampd = createClient({ baseUrl: "http://localhost:8080", apiKey: process.env.STAMPD_API_KEY });
 * const stamp = await stampd.stamps.create({ file: "./contract.pdf", preset: "standard" });
 */
export class StampdClient {
  readonly service: Service;
  readonly stamps: Stamps;
  readonly verify: Verify;
  readonly fingerprints: Fingerprints;
  readonly identities: Identities;
  readonly presets: Presets;
  readonly hash: Hash;
  readonly vault: Vault;
  readonly explorer: Explorer;
  readonly log: Log;
  private grpcClient: StampdGrpc | undefined;

  constructor(private readonly options: ClientOptions) {
    const http = createHttpClient(options);
    const core = new ApiCore(http, {
      maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
      timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
      onRetry: options.onRetry,
    });
    this.service = new Service(core);
    this.stamps = new Stamps(core, () =>
      this.ws({ reconnect: false, subscribeTimeoutMs: WAIT_SUBSCRIBE_TIMEOUT_MS }),
    );
    this.verify = new Verify(core);
    this.fingerprints = new Fingerprints(core);
    this.identities = new Identities(core);
    this.presets = new Presets(core);
    this.hash = new Hash(core);
    this.vault = new Vault(core);
    this.explorer = new Explorer(core);
    this.log = new Log(core);
  }

  /**
   * The gRPC client (svc.v1.StampService), created on first use with the client's key.
   *
   * @example
   * const client = createClient({ baseUrl, grpcUrl: "http://localhost:50051", apiKey });
   * const { stamp } = await client.grpc.getStamp(stampId);
   */
  get grpc(): StampdGrpc {
    const { grpcUrl, grpcTransport, apiKey, maxRetries, onRetry } = this.options;
    if (!grpcUrl && !grpcTransport)
      throw new StampdError("client.grpc needs the grpcUrl or grpcTransport option");
    this.grpcClient ??= new StampdGrpc({
      baseUrl: grpcUrl,
      transport: grpcTransport,
      apiKey,
      maxRetries,
      onRetry,
    });
    return this.grpcClient;
  }

  /**
   * Opens a WebSocket connection (a reconnecting `StampdSocket`) with the client's key. On Node 20,
   * which has no global WebSocket, pass `WebSocket` from the `ws` package.
   *
   * @example
   * import WebSocket from "ws"; // Node 20 only
   * const socket = client.ws({ WebSocket, subscribeTimeoutMs: 5000 });
   * await socket.subscribe("user_stamps");
   */
  ws(options: ClientSocketOptions = {}): StampdSocket {
    const url = options.url ?? this.options.wsUrl ?? defaultWsUrl(this.options.baseUrl);
    const WebSocket = options.WebSocket ?? this.options.WebSocket;
    return new StampdSocket({ ...options, url, apiKey: this.options.apiKey, WebSocket });
  }
}

/**
 * A stampd client; see `ClientOptions`.
 *
 * @example
 * const client = createClient({ baseUrl: "http://localhost:8080", apiKey: process.env.STAMPD_API_KEY });
 */
export function createClient(options: ClientOptions): StampdClient {
  return new StampdClient(options);
}

function defaultWsUrl(baseUrl: string): string {
  const url = new URL("ws", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}
