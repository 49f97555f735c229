import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import WebSocket from "ws";
import { serverMessageSchemas } from "../../gen/asyncapi/schemas.js";
import { type Check, CheckFailed, expectThat, NotRun } from "./check.js";
import type { Ctx } from "./rest-recipe.js";
import { sleep } from "./traffic.js";

type Message = { type: string; id?: string; data?: Record<string, unknown> } & Record<string, unknown>;
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;

/** Upgrades refused with 429 the kit waits out, and the longest wait. */
const MAX_THROTTLED = 3;
const MAX_WAIT_SECONDS = 60;
/** Seconds to wait for a reply or an event. */
const REPLY_SECONDS = 10;

/** Server messages of specs/asyncapi.yaml (draft-07 schemas, generated in gen/asyncapi/). */
function serverValidators(): Map<string, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return new Map(Object.entries(serverMessageSchemas).map(([type, schema]) => [type, ajv.compile(schema)]));
}

/**
 * One WebSocket connection of a check: every frame the server sends is checked against its
 * AsyncAPI schema as it arrives (unknown types are allowed: the spec lets the server add some).
 */
class Connection {
  /** Server frames that break specs/asyncapi.yaml, described. */
  readonly violations: string[] = [];
  private readonly inbox: Message[] = [];
  private readonly waiting: (() => void)[] = [];
  private counter = 0;

  private constructor(
    private readonly socket: WebSocket,
    private readonly validators: Map<string, ValidateFunction>,
  ) {
    socket.on("message", (data) => {
      const message = this.judge(data.toString());
      if (message) this.inbox.push(message);
      for (const wake of this.waiting.splice(0)) wake();
    });
  }

  /** Opens a connection, waiting out a 429 at the upgrade by its Retry-After (as REST does). */
  static async open(url: string, key: string | undefined, validators: Map<string, ValidateFunction>) {
    for (let attempt = 0; ; attempt++) {
      const opened = await Connection.attempt(url, key, validators);
      if (opened instanceof Connection) return opened;
      const wait = Number(opened.headers["retry-after"]);
      if (opened.statusCode !== 429 || !(wait > 0) || attempt >= MAX_THROTTLED)
        throw new CheckFailed("the upgrade to succeed (101)", `HTTP ${opened.statusCode}`, `GET ${url}`);
      await sleep(Math.min(wait, MAX_WAIT_SECONDS) * 1000);
    }
  }

  private static attempt(url: string, key: string | undefined, validators: Map<string, ValidateFunction>) {
    const socket = new WebSocket(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return new Promise<Connection | IncomingMessage>((resolve, reject) => {
      socket.once("open", () => resolve(new Connection(socket, validators)));
      socket.once("unexpected-response", (_req, res) => {
        res.resume();
        resolve(res);
      });
      socket.once("error", reject);
    });
  }

  send(frame: Record<string, unknown> | string): void {
    this.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /**
   * Sends a request with a fresh id and waits for the message that carries it; a `rate_limited`
   * error reply is waited out by its `retryAfter` and the request sent again, as the upgrade's 429.
   */
  async request(frame: Record<string, unknown>): Promise<Message> {
    for (let attempt = 0; ; attempt++) {
      const id = `c${++this.counter}`;
      this.send({ ...frame, id });
      const reply = await this.until((m) => m.id === id, `a reply with id ${id} to ${JSON.stringify(frame)}`);
      const wait = reply.type === "error" && reply.data?.code === "rate_limited" ? reply.data.retryAfter : 0;
      if (!(typeof wait === "number" && wait > 0) || attempt >= MAX_THROTTLED) return reply;
      await sleep(Math.min(wait, MAX_WAIT_SECONDS) * 1000);
    }
  }

  /** The first message (queued or coming) that `match` accepts. */
  async until(match: (m: Message) => boolean, what: string): Promise<Message> {
    const deadline = Date.now() + REPLY_SECONDS * 1000;
    for (;;) {
      const index = this.inbox.findIndex(match);
      if (index >= 0) return this.inbox.splice(index, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new CheckFailed(what, `nothing within ${REPLY_SECONDS} s (got ${this.types()})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }

  private types(): string {
    return this.inbox.map((m) => m.type).join(", ") || "no message";
  }

  private judge(text: string): Message | undefined {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      this.violations.push(`a frame that is not JSON: ${text.slice(0, 200)}`);
      return undefined;
    }
    const check = this.validators.get(message.type);
    if (check && !check(message)) {
      const errors = (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
      this.violations.push(`${text.slice(0, 300)}: ${errors}`);
    }
    return message;
  }
}

/** The WebSocket checks; `url` is the `/ws` endpoint (undefined: not run, with `why`). */
export function wsChecks(ctx: Ctx, url: string | undefined, why: string, keys: { owner: string }): Check[] {
  let validators: Map<string, ValidateFunction> | undefined;
  const check = (
    name: string,
    run: (open: (key?: string) => Promise<Connection>) => Promise<void>,
  ): Check => ({
    area: "ws",
    name,
    run: async () => {
      if (!url) throw new NotRun(why);
      validators ??= serverValidators();
      const opened: Connection[] = [];
      const open = async (key: string | undefined = keys.owner) => {
        const connection = await Connection.open(url, key, validators!);
        opened.push(connection);
        return connection;
      };
      try {
        await run(open);
        const violation = opened.flatMap((connection) => connection.violations)[0];
        if (violation)
          throw new CheckFailed("server messages as specs/asyncapi.yaml documents them", violation);
      } finally {
        for (const connection of opened) connection.close();
      }
    },
  });
  const hash = () => `sha256:${createHash("sha256").update(randomBytes(32)).digest("hex")}`;
  const expectType = (m: Message, type: string, code?: string) =>
    expectThat(
      m.type === type && (code === undefined || m.data?.code === code),
      code ? `${type} ${code}` : type,
      () => JSON.stringify(m).slice(0, 300),
    );
  return [
    check("ping is answered by pong with its id and data", async (open) => {
      const ws = await open();
      const reply = await ws.request({ type: "ping", data: { run: ctx.runId } });
      expectType(reply, "pong");
      expectThat(reply.data?.run === ctx.runId, `data {"run":"${ctx.runId}"}`, () =>
        JSON.stringify(reply.data),
      );
    }),
    check("subscribe to all_stamps is answered by subscribed", async (open) => {
      const ws = await open();
      expectType(await ws.request({ type: "subscribe", data: { channel: "all_stamps" } }), "subscribed");
    }),
    check("an unknown message type is answered by error unknown_type", async (open) => {
      const ws = await open();
      expectType(await ws.request({ type: "conformance-no-such-type", data: {} }), "error", "unknown_type");
    }),
    check("a frame that is not JSON is answered by error invalid_json", async (open) => {
      const ws = await open();
      ws.send("{not json");
      expectType(await ws.until((m) => m.type === "error", "an error message"), "error", "invalid_json");
    }),
    check("verify of an unknown stamp is answered by error not_found", async (open) => {
      const ws = await open();
      const reply = await ws.request({
        type: "verify",
        data: { stampId: "stp_00000000000000000000000000", contentHash: hash() },
      });
      expectType(reply, "error", "not_found");
    }),
    check("an unknown key is refused at the upgrade with 401", async () => {
      try {
        const ws = await Connection.open(url!, `svc_test_${"A".repeat(43)}`, validators!);
        ws.close();
      } catch (err) {
        if (err instanceof CheckFailed && err.actual === "HTTP 401") return;
        throw err;
      }
      throw new CheckFailed("HTTP 401 at the upgrade", "101: the connection was opened");
    }),
    check("stamp (tagged with the run id) is answered by stamp_created with its metadata", async (open) => {
      if (!ctx.write) throw new NotRun("creates a stamp: needs --write");
      const ws = await open();
      const contentHash = hash();
      const reply = await ws.request({
        type: "stamp",
        data: { contentHash, metadata: { conformance: ctx.runId } },
      });
      expectType(reply, "stamp_created");
      expectThat(
        reply.data?.contentHash === contentHash &&
          (reply.data?.metadata as Record<string, string>)?.conformance === ctx.runId,
        `contentHash ${contentHash} and metadata {"conformance":"${ctx.runId}"}`,
        () => JSON.stringify(reply.data),
      );
    }),
    check("user_stamps delivers stamp_created for a stamp made through REST", async (open) => {
      if (!ctx.write) throw new NotRun("creates a stamp: needs --write");
      const ws = await open();
      expectType(await ws.request({ type: "subscribe", data: { channel: "user_stamps" } }), "subscribed");
      const made = await ctx.client.stamps.create({ file: ctx.fx.document, filename: ctx.fx.filename });
      await ws.until(
        (m) => m.type === "stamp_created" && m.data?.id === made.stamp_id,
        `stamp_created for ${made.stamp_id}`,
      );
    }),
  ];
}
