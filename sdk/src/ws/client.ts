import type {
  ServerMessage,
  ServerMessageOf,
  ServerMessageType,
  StampCreatedData,
  StampRequestData,
  SubscribedData,
  SubscriptionChannel,
  SubscriptionFilters,
  UnsubscribedData,
  VerificationResultData,
  VerifyRequestData,
} from "../../../gen/asyncapi/index.js";
import { StampdError } from "../internal/errors.js";
import { retryDelay } from "../internal/retry.js";
import { WsConnectionError, WsQueueFullError, WsRequestError, WsTimeoutError } from "./errors.js";
import { EventStream } from "./event-stream.js";
import { OPEN, type WebSocketConstructor, type WebSocketLike } from "./socket-like.js";
import { upgradeRefusal } from "./upgrade-refusal.js";

export interface StampdSocketOptions {
  /** The endpoint, e.g. `wss://stampd.example.com/ws`. */
  url: string;
  /** An API key; needed for the user_stamps and user_vaults channels. */
  apiKey?: string | undefined;
  /**
   * How the key travels: `"header"` (`Authorization: Bearer`, the default on Node, Bun and Deno,
   * whose WebSocket classes, the `ws` package's and the global one, take headers: the key stays
   * out of URLs, and so out of proxies' access logs) or `"query"` (`?api_key=`, the default in
   * browsers, whose WebSocket cannot send a header).
   */
  sendKeyAs?: "query" | "header" | undefined;
  /** The WebSocket class; defaults to the global one (browsers, Node 22). On Node 20 pass `ws`. */
  WebSocket?: WebSocketConstructor | undefined;
  /** Requests kept while disconnected; one more rejects with WsQueueFullError. Default 100. */
  maxQueue?: number | undefined;
  /** Milliseconds a request may wait for its reply, queueing included. Default 30000. */
  requestTimeoutMs?: number | undefined;
  /**
   * Milliseconds one connection attempt may take to open; a slower one is dropped and retried
   * like a lost connection. Default 10000.
   */
  connectTimeoutMs?: number | undefined;
  /**
   * Milliseconds a `subscribe()` may wait for the server's confirmation, connecting included;
   * then it rejects with WsTimeoutError and the subscription is not restored. Default 10000.
   */
  subscribeTimeoutMs?: number | undefined;
  /** Messages an `events()` iterator may hold unread before it fails. Default 1000. */
  maxBufferedEvents?: number | undefined;
  /** Reconnect after a recoverable close (default true). */
  reconnect?: boolean | undefined;
  /** Called before each reconnection attempt, with the delay about to be waited. */
  onReconnecting?: ((info: ReconnectInfo) => void) | undefined;
}

export interface ReconnectInfo {
  /** 1 for the first attempt after a connection was lost. */
  attempt: number;
  delayMs: number;
  /** The close code that ended the previous connection (1006 when it could not be opened). */
  code: number;
  reason: string;
}

export interface CloseInfo {
  code: number;
  reason: string;
  /**
   * Why the client stopped, unless close() stopped it: AuthenticationError (the key was refused),
   * PermissionDeniedError, WsEndpointError (not a stampd endpoint) or WsConnectionError.
   */
  error?: Error;
}

/**
 * Close codes after which reconnecting may help (server going away, restarting, overloaded, or
 * the network failing). Anything else, such as 1003 or 1009 (a client bug), stops the client.
 */
export const RECOVERABLE_CLOSE_CODES: ReadonlySet<number> = new Set([
  1001, 1005, 1006, 1011, 1012, 1013, 1015,
]);

interface SubscribeWaiter {
  resolve: (data: SubscribedData) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

interface Subscription {
  key: string;
  channel: SubscriptionChannel;
  filters: SubscriptionFilters;
  /** Whether the server confirmed it once: it is then restored after a reconnection. */
  confirmed: boolean;
  waiters: SubscribeWaiter[];
}

type Pending =
  | { kind: "subscribe"; subscription: Subscription }
  | {
      kind: "request";
      expected: ServerMessageType;
      resolve: (data: unknown) => void;
      reject: (err: Error) => void;
      timer: ReturnType<typeof setTimeout>;
      sent: boolean;
    };

/**
 * A typed client of stampd's WebSocket API (specs/asyncapi.yaml). It connects at once and, when
 * the connection drops with a recoverable code, reconnects with backoff (0.5 s doubling to 8 s,
 * with jitter) and subscribes again to everything subscribed before. Requests made while
 * disconnected wait in a bounded queue; requests in flight when a connection drops reject with
 * WsConnectionError (a `stamp` is never sent twice). A refusal is final: a key the server refuses
 * (HTTP 401 on the upgrade) stops the client with AuthenticationError, and a peer that is not a
 * stampd WebSocket endpoint (an HTTP server answering 404, say) with WsEndpointError; `subscribe()`
 * and requests always settle within their timeouts.
 *
 * @example
 * const client = new StampdSocket({ url: "ws://localhost:8080/ws", apiKey, WebSocket });
 * await client.subscribe("user_stamps");
 * for await (const event of client.events("stamp_created")) console.log(event.data.id);
 */
export class StampdSocket {
  /** Resolves when the client stops for good: close() or a close code that is not recoverable. */
  readonly closed: Promise<CloseInfo>;
  private readonly options: Required<Omit<StampdSocketOptions, "apiKey" | "onReconnecting">> &
    Pick<StampdSocketOptions, "apiKey" | "onReconnecting">;
  private socket: WebSocketLike | undefined;
  private stopped = false;
  private attempt = 0;
  private seq = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private connectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Why the current attempt's upgrade was refused for good, from its `error` event. */
  private refusal: Error | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly outbox: { id: string; frame: string }[] = [];
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly streams = new Map<string, Set<EventStream<ServerMessage>>>();
  private resolveClosed!: (info: CloseInfo) => void;

  constructor(options: StampdSocketOptions) {
    const WebSocketClass =
      options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketClass) throw new StampdError("no global WebSocket here (Node 20): pass options.WebSocket");
    this.options = {
      url: options.url,
      apiKey: options.apiKey,
      sendKeyAs: options.sendKeyAs ?? (canSendHeaders() ? "header" : "query"),
      maxQueue: options.maxQueue ?? 100,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      subscribeTimeoutMs: options.subscribeTimeoutMs ?? 10_000,
      maxBufferedEvents: options.maxBufferedEvents ?? 1000,
      reconnect: options.reconnect ?? true,
      onReconnecting: options.onReconnecting,
      WebSocket: WebSocketClass,
    };
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    this.connect();
  }

  /**
   * Follows a channel, now and after every reconnection, until unsubscribe(). Resolves when the
   * server confirms; rejects with WsRequestError when it refuses, with WsTimeoutError after
   * `subscribeTimeoutMs`, or with the error that stopped the client (AuthenticationError, ...).
   *
   * @example
   * await client.subscribe("stamp", { stamp_id: "stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8" });
   */
  subscribe(channel: SubscriptionChannel, filters: SubscriptionFilters = {}): Promise<SubscribedData> {
    if (this.stopped) return Promise.reject(new WsConnectionError("the client is closed"));
    const key = subscriptionKey(channel, filters);
    let subscription = this.subscriptions.get(key);
    if (!subscription) {
      subscription = { key, channel, filters, confirmed: false, waiters: [] };
      this.subscriptions.set(key, subscription);
    }
    const confirmed = new Promise<SubscribedData>((resolve, reject) => {
      const timer = setTimeout(
        () => this.subscribeTimedOut(subscription, waiter),
        this.options.subscribeTimeoutMs,
      );
      const waiter: SubscribeWaiter = { resolve, reject, timer };
      subscription.waiters.push(waiter);
    });
    if (this.isOpen()) this.sendSubscribe(subscription);
    return confirmed;
  }

  /**
   * Stops following a channel: with `filters`, the subscription that has them; without, all on the
   * channel. While disconnected it answers locally: `removed` counts the subscriptions that will
   * not be restored.
   *
   * @example
   * const { removed } = await socket.unsubscribe("stamp", { stamp_id: stampId });
   */
  async unsubscribe(channel: SubscriptionChannel, filters?: SubscriptionFilters): Promise<UnsubscribedData> {
    const whole = filters === undefined || Object.keys(filters).length === 0;
    const gone = [...this.subscriptions.values()].filter(
      (s) => s.channel === channel && (whole || s.key === subscriptionKey(channel, filters)),
    );
    for (const s of gone) this.subscriptions.delete(s.key);
    if (this.isOpen())
      return this.request("unsubscribe", { channel, ...(filters ? { filters } : {}) }, "unsubscribed");
    for (const s of gone) rejectAll(s, new WsConnectionError("unsubscribed before the server confirmed"));
    return { channel, filters: filters ?? {}, removed: gone.length };
  }

  /**
   * Creates a stamp of a content hash; resolves with the `stamp_created` reply's data.
   *
   * @example
   * const created = await client.stamp({ contentHash: "sha3-256:" + "ab".repeat(32) });
   */
  stamp(data: StampRequestData): Promise<StampCreatedData> {
    return this.request("stamp", data, "stamp_created");
  }

  /**
   * Checks a content hash against a stamp; resolves with the `verification_result`'s data.
   *
   * @example
   * const result = await client.verify({ stampId: created.id, contentHash: created.contentHash });
   */
  verify(data: VerifyRequestData): Promise<VerificationResultData> {
    return this.request("verify", data, "verification_result");
  }

  /**
   * An application-level round trip; resolves with the data echoed in `pong`.
   *
   * @example
   * await client.ping({ t: Date.now() });
   */
  ping(data: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.request("ping", data, "pong");
  }

  /**
   * Every message of `type` this client receives from now on (events, and replies of that type),
   * until the iteration is left or the client closes.
   *
   * @example
   * for await (const event of client.events("vault_heartbeat")) console.log(event.data.nextDeadline);
   */
  events<T extends ServerMessageType>(type: T): AsyncIterableIterator<ServerMessageOf<T>> {
    let set = this.streams.get(type);
    if (!set) {
      set = new Set();
      this.streams.set(type, set);
    }
    const streams = set;
    const stream: EventStream<ServerMessage> = new EventStream(this.options.maxBufferedEvents, () =>
      streams.delete(stream),
    );
    if (this.stopped) stream.end();
    else streams.add(stream);
    return stream as unknown as AsyncIterableIterator<ServerMessageOf<T>>;
  }

  /**
   * Closes the connection for good; pending requests reject and event iterations end.
   *
   * @example
   * client.close();
   * await client.closed; // { code: 1000, reason: "client closed" }
   */
  close(): void {
    if (this.stopped) return;
    this.socket?.close(1000, "client closed");
    this.stop({ code: 1000, reason: "client closed" }, new WsConnectionError("the client was closed"));
  }

  private connect(): void {
    const { url, apiKey, sendKeyAs, WebSocket } = this.options;
    const socket =
      apiKey && sendKeyAs === "header"
        ? new (WebSocket as unknown as HeaderWebSocketConstructor)(url, {
            headers: { Authorization: `Bearer ${apiKey}` },
          })
        : new WebSocket(apiKey ? withQuery(url, "api_key", apiKey) : url);
    this.socket = socket;
    this.refusal = undefined;
    // A connection that does not open in time is dropped: its close (1006) schedules the next try.
    this.connectTimer = setTimeout(() => socket.close(), this.options.connectTimeoutMs);
    socket.addEventListener("open", () => this.onOpen(socket));
    socket.addEventListener("message", (event) => this.onMessage(event.data));
    socket.addEventListener("close", (event) => this.onClose(socket, event.code, event.reason));
    // The close event that always follows ends the attempt; the error tells a refusal (`ws` names
    // the upgrade's HTTP status) from a network failure. An unheard error would throw in `ws`.
    socket.addEventListener("error", (event) => {
      if (socket === this.socket) this.refusal = upgradeRefusal(event?.message, url);
    });
  }

  private onOpen(socket: WebSocketLike): void {
    if (socket !== this.socket) return;
    clearTimeout(this.connectTimer);
    this.attempt = 0;
    for (const subscription of this.subscriptions.values()) this.sendSubscribe(subscription);
    for (const { id, frame } of this.outbox.splice(0)) {
      const entry = this.pending.get(id);
      if (entry?.kind === "request") entry.sent = true;
      socket.send(frame);
    }
  }

  private onMessage(data: unknown): void {
    if (typeof data !== "string") return;
    const message = parse(data);
    if (!message) return;
    if ("id" in message && message.id !== undefined) this.settle(message.id, message);
    for (const stream of this.streams.get(message.type) ?? []) stream.push(message);
  }

  private onClose(socket: WebSocketLike, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    clearTimeout(this.connectTimer);
    if (this.refusal) {
      this.stop({ code, reason, error: this.refusal }, this.refusal);
      return;
    }
    const lost = new WsConnectionError(`the connection closed (${code}) before the reply`);
    for (const [id, entry] of this.pending) {
      // Subscriptions are sent again on the next connection; requests never are.
      if (entry.kind === "subscribe") this.pending.delete(id);
      else if (entry.sent) this.fail(id, lost);
    }
    if (this.options.reconnect && RECOVERABLE_CLOSE_CODES.has(code)) this.scheduleReconnect(code, reason);
    else {
      const error = new WsConnectionError(`the connection closed (${code}) for good`);
      this.stop({ code, reason, error }, error);
    }
  }

  private scheduleReconnect(code: number, reason: string): void {
    const attempt = ++this.attempt;
    const delayMs = retryDelay(attempt - 1, undefined);
    this.options.onReconnecting?.({ attempt, delayMs, code, reason });
    this.reconnectTimer = setTimeout(() => this.connect(), delayMs);
  }

  private stop(info: CloseInfo, error: Error): void {
    this.stopped = true;
    this.socket = undefined;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.connectTimer);
    for (const id of [...this.pending.keys()]) this.fail(id, error);
    this.outbox.length = 0;
    for (const subscription of this.subscriptions.values()) rejectAll(subscription, error);
    this.subscriptions.clear();
    const streamError = info.code === 1000 ? undefined : error;
    for (const set of this.streams.values()) for (const stream of [...set]) stream.end(streamError);
    this.resolveClosed(info);
  }

  private request<T>(type: string, data: unknown, expected: ServerMessageType): Promise<T> {
    if (this.stopped) return Promise.reject(new WsConnectionError("the client is closed"));
    const open = this.isOpen();
    if (!open && this.outbox.length >= this.options.maxQueue) {
      return Promise.reject(new WsQueueFullError(`${this.options.maxQueue} requests are already waiting`));
    }
    const id = String(++this.seq);
    const frame = JSON.stringify({ type, id, data });
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(id, new WsTimeoutError(`no reply to ${type}`)),
        this.options.requestTimeoutMs,
      );
      this.pending.set(id, {
        kind: "request",
        expected,
        resolve: resolve as (d: unknown) => void,
        reject,
        timer,
        sent: open,
      });
      if (open) this.socket!.send(frame);
      else this.outbox.push({ id, frame });
    });
  }

  private sendSubscribe(subscription: Subscription): void {
    const id = String(++this.seq);
    this.pending.set(id, { kind: "subscribe", subscription });
    const { channel, filters } = subscription;
    this.socket!.send(JSON.stringify({ type: "subscribe", id, data: { channel, filters } }));
  }

  private settle(id: string, message: ServerMessage): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    if (entry.kind === "subscribe") {
      this.settleSubscribe(entry.subscription, message);
      return;
    }
    clearTimeout(entry.timer);
    if (message.type === "error") entry.reject(new WsRequestError(message.data));
    else if (message.type === entry.expected) entry.resolve(message.data);
    else entry.reject(new StampdError(`expected ${entry.expected}, got ${message.type}`));
  }

  private settleSubscribe(subscription: Subscription, message: ServerMessage): void {
    const waiters = subscription.waiters.splice(0);
    for (const w of waiters) clearTimeout(w.timer);
    if (message.type === "subscribed") {
      subscription.confirmed = true;
      for (const w of waiters) w.resolve(message.data);
      return;
    }
    // Refused (unauthenticated, too many subscriptions, …): it is not restored either.
    if (this.subscriptions.get(subscription.key) === subscription)
      this.subscriptions.delete(subscription.key);
    const error = message.type === "error" ? new WsRequestError(message.data) : new StampdError(message.type);
    for (const w of waiters) w.reject(error);
  }

  /**
   * A subscribe() that got no confirmation in time rejects; a subscription never confirmed and
   * no longer awaited is dropped, so that it is not sent on a later connection behind the caller's back.
   */
  private subscribeTimedOut(subscription: Subscription, waiter: SubscribeWaiter): void {
    const at = subscription.waiters.indexOf(waiter);
    if (at < 0) return;
    subscription.waiters.splice(at, 1);
    if (
      !subscription.confirmed &&
      subscription.waiters.length === 0 &&
      this.subscriptions.get(subscription.key) === subscription
    )
      this.subscriptions.delete(subscription.key);
    const { url, subscribeTimeoutMs } = this.options;
    const why = this.isOpen()
      ? `the server did not answer: is ${url} a stampd WebSocket endpoint?`
      : `could not connect to ${url}`;
    waiter.reject(
      new WsTimeoutError(
        `no confirmation of subscribe ${subscription.channel} within ${subscribeTimeoutMs} ms (${why})`,
      ),
    );
  }

  private fail(id: string, error: Error): void {
    const entry = this.pending.get(id);
    if (entry?.kind !== "request") return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    const queued = this.outbox.findIndex((item) => item.id === id);
    if (queued >= 0) this.outbox.splice(queued, 1);
    entry.reject(error);
  }

  private isOpen(): boolean {
    return this.socket?.readyState === OPEN && !this.stopped;
  }
}

/** Filter-independent of member order, so `{a, b}` and `{b, a}` are one subscription. */
function subscriptionKey(channel: string, filters: SubscriptionFilters = {}): string {
  const entries = Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : 1));
  return `${channel}?${new URLSearchParams(entries as [string, string][])}`;
}

function rejectAll(subscription: Subscription, error: Error): void {
  for (const w of subscription.waiters.splice(0)) {
    clearTimeout(w.timer);
    w.reject(error);
  }
}

/**
 * Whether this runtime's WebSocket classes take headers. Node's (the `ws` package, and the global
 * one of Node 22, undici's), Bun's and Deno's take `{ headers }` as the second argument; a
 * browser's takes only subprotocols there, so browsers send the key in the query.
 */
function canSendHeaders(): boolean {
  const runtime = globalThis as { process?: { versions?: { node?: string } }; Deno?: unknown };
  return runtime.process?.versions?.node !== undefined || runtime.Deno !== undefined;
}

/** How a header-capable WebSocket class is called (see `canSendHeaders`). */
type HeaderWebSocketConstructor = new (
  url: string,
  init: { headers: Record<string, string> },
) => WebSocketLike;

function withQuery(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

/** A server message, or undefined for anything else (clients ignore what they do not know). */
function parse(text: string): ServerMessage | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (
      typeof value === "object" &&
      value !== null &&
      typeof (value as { type?: unknown }).type === "string"
    ) {
      return value as ServerMessage;
    }
  } catch {
    // not JSON: ignored like an unknown message
  }
  return undefined;
}
