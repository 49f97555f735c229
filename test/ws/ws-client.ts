import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import WebSocket from "ws";
import type { ClientMessage, ServerMessage, ServerMessageType } from "../../gen/asyncapi/index.js";
import { serverMessageSchemas } from "../../gen/asyncapi/schemas.js";

const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv);
const validators = new Map(Object.entries(serverMessageSchemas).map(([type, s]) => [type, ajv.compile(s)]));

export interface ConnectOptions {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  autoPong?: boolean;
}

export function wsUrl(baseUrl: string, query: Record<string, string> = {}): string {
  const url = new URL("/ws", baseUrl.replace(/^http/, "ws"));
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * A raw `ws` client for tests: messages queue up in arrival order, and each one is checked
 * against the spec's server schemas, so every test also checks what the server sends.
 */
export class TestClient {
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly inbox: ServerMessage[] = [];
  private readonly waiting: ((m: ServerMessage) => void)[] = [];
  private counter = 0;

  private constructor(
    readonly socket: WebSocket,
    /** Headers of the 101 response. */
    readonly upgradeHeaders: Record<string, string | string[] | undefined>,
  ) {
    socket.on("message", (data) => this.receive(JSON.parse(data.toString())));
    this.closed = new Promise((resolve) => {
      socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
    });
  }

  static async connect(baseUrl: string, options: ConnectOptions = {}): Promise<TestClient> {
    const socket = new WebSocket(wsUrl(baseUrl, options.query), {
      headers: options.headers,
      autoPong: options.autoPong ?? true,
    });
    const upgraded = new Promise<Record<string, string | string[] | undefined>>((resolve) => {
      socket.once("upgrade", (res) => resolve(res.headers));
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return new TestClient(socket, await upgraded);
  }

  send(message: ClientMessage | Record<string, unknown> | string): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** The next message, in arrival order. */
  next(): Promise<ServerMessage> {
    const queued = this.inbox.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Sends a request with a fresh id and returns the next message (its reply when nothing else is due). */
  async request(message: Omit<ClientMessage, "id"> | Record<string, unknown>): Promise<ServerMessage> {
    const id = `t${++this.counter}`;
    this.send({ ...message, id });
    const reply = await this.next();
    if (reply.type !== "error" && "id" in reply && reply.id !== id)
      throw new Error(`reply ${reply.id} for ${id}`);
    return reply;
  }

  async expectReply<T extends ServerMessageType>(type: T, message: Record<string, unknown>) {
    const reply = await this.request(message);
    if (reply.type !== type) throw new Error(`expected ${type}, got ${JSON.stringify(reply)}`);
    return reply as Extract<ServerMessage, { type: T }>;
  }

  async subscribe(channel: string, filters?: Record<string, string>): Promise<void> {
    await this.expectReply("subscribed", {
      type: "subscribe",
      data: { channel, ...(filters ? { filters } : {}) },
    });
  }

  /**
   * Everything received before the answer to a fresh ping. Frames on one connection arrive in the
   * order they were sent, so events published before this call are in the list or were never sent.
   */
  async drain(): Promise<ServerMessage[]> {
    const id = `drain${++this.counter}`;
    this.send({ type: "ping", id });
    const seen: ServerMessage[] = [];
    for (;;) {
      const message = await this.next();
      if (message.type === "pong" && message.id === id) return seen;
      seen.push(message);
    }
  }

  close(): void {
    this.socket.close();
  }

  private receive(message: ServerMessage): void {
    const validate = validators.get(message.type);
    if (!validate?.(message)) {
      throw new Error(
        `server sent an invalid ${message.type}: ${JSON.stringify(validate?.errors ?? message)}`,
      );
    }
    const waiter = this.waiting.shift();
    if (waiter) waiter(message);
    else this.inbox.push(message);
  }
}

/** The HTTP status of a refused upgrade, with its headers and body. */
export function refusedUpgrade(
  baseUrl: string,
  options: ConnectOptions = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const socket = new WebSocket(wsUrl(baseUrl, options.query), { headers: options.headers });
  return new Promise((resolve, reject) => {
    socket.once("open", () => reject(new Error("upgrade was accepted")));
    socket.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    socket.once("error", () => {});
  });
}
