import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import WebSocket from "ws";
import { serverMessageSchemas } from "../../../gen/asyncapi/index.js";
import { issueKey } from "../../helpers/keys.js";
import type { RunningService } from "../../helpers/service.js";
import { wsUrl } from "../../ws/ws-client.js";
import { Rng } from "../random.js";
import { count, type FuzzFailure, type SurfaceReport } from "../report.js";
import { type Expectation, type Frame, FrameMaker } from "./frames.js";

type Message = Record<string, unknown> & { type: string; id?: string; data?: Record<string, unknown> };

/** How long a reply or a close may take before the fuzzer calls it missing. */
const ANSWER_TIMEOUT_MS = 10_000;
/** Connections in use at once (each on its own key or address, so rate limits stay out of the way). */
const CONNECTIONS = 6;

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
const serverChecks = new Map<string, ValidateFunction>(
  Object.entries(serverMessageSchemas).map(([type, schema]) => [type, ajv.compile(schema)]),
);

/** One client connection whose messages queue up in arrival order. */
class Connection {
  private readonly inbox: Message[] = [];
  private waiting: (() => void) | undefined;
  closeCode: number | undefined;
  readonly problems: string[] = [];

  private constructor(
    readonly socket: WebSocket,
    readonly authenticated: boolean,
  ) {
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString()) as Message;
      const { type } = message;
      const check = serverChecks.get(type);
      if (!check) this.problems.push(`a message of unknown type ${JSON.stringify(type)}`);
      else if (!check(message))
        this.problems.push(`a ${type} message breaks its schema: ${ajv.errorsText(check.errors)}`);
      this.inbox.push(message);
      this.waiting?.();
    });
    // A connection the server drops reports why through its close code; the error event only repeats it.
    socket.on("error", () => {});
    socket.on("close", (code) => {
      this.closeCode = code;
      this.waiting?.();
    });
  }

  static open(url: string, headers: Record<string, string>, authenticated: boolean): Promise<Connection> {
    const socket = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new Connection(socket, authenticated)));
      socket.once("error", reject);
    });
  }

  /** The next message (or the close) within the timeout; undefined when nothing came. */
  async next(): Promise<Message | "closed" | undefined> {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    while (this.inbox.length === 0 && this.closeCode === undefined && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.waiting = undefined;
    return this.inbox.shift() ?? (this.closeCode !== undefined ? "closed" : undefined);
  }

  send(frame: Frame): void {
    this.socket.send(frame.data, { binary: frame.binary === true });
  }
}

/**
 * Fuzzes the WebSocket API of specs/asyncapi.yaml: `count` frames, valid and mutated, over a few
 * connections (authenticated and anonymous). Every message the server sends must match its
 * schema; each frame must get exactly the reply the spec names (or a documented error code, with
 * the request's id), or the documented close code; after a recoverable error the same connection
 * must keep answering.
 */
export async function fuzzWs(
  svc: RunningService,
  options: { seed: number; count: number },
): Promise<SurfaceReport> {
  const report: SurfaceReport = { surface: "ws", requests: 0, failures: [], outcomes: {} };
  const keys = await Promise.all(
    Array.from({ length: CONNECTIONS }, () => issueKey(svc, { tier: "internal" })),
  );
  const stampIds: string[] = [];
  const maker = new FrameMaker(() => stampIds);
  let opened = 0;
  const open = (slot: number) => {
    // Even slots carry a key; odd ones are anonymous, each connection from its own (trusted-proxy)
    // address, since every upgrade is charged to the caller's bucket.
    opened++;
    const address = `198.18.${(opened >> 8) & 0xff}.${opened & 0xff}`;
    const headers: Record<string, string> =
      slot % 2 === 0 ? { authorization: `Bearer ${keys[slot]!.key}` } : { "x-forwarded-for": address };
    return Connection.open(wsUrl(svc.baseUrl), headers, slot % 2 === 0);
  };
  const connections = await Promise.all(Array.from({ length: CONNECTIONS }, (_, slot) => open(slot)));

  for (let index = 0; index < options.count; index++) {
    const rng = Rng.forItem(options.seed, index);
    const slot = rng.int(CONNECTIONS);
    const conn = connections[slot]!;
    const frame = maker.make(rng, `f${index}`, conn.authenticated);
    report.requests++;
    conn.send(frame);
    const problems = await answer(conn, frame.expect, report.outcomes, stampIds);
    problems.push(...conn.problems.splice(0));
    if (conn.closeCode !== undefined) connections[slot] = await open(slot);
    else if (frame.expect.kind === "reply" && frame.expect.types.includes("error") && rng.chance(0.3)) {
      // The spec: errors answered with an `error` message leave the connection open and usable.
      report.requests++;
      const ping: Frame = {
        data: JSON.stringify({ type: "ping", id: `p${index}` }),
        mutation: "ping",
        expect: { kind: "reply", id: `p${index}`, types: ["pong"], codes: [] },
      };
      conn.send(ping);
      problems.push(
        ...(await answer(conn, ping.expect, report.outcomes, stampIds)).map((p) => `after the error: ${p}`),
      );
    }
    if (problems.length > 0) report.failures.push(failure(index, frame, problems));
  }
  for (const conn of connections) conn.socket.terminate();
  return report;
}

/** Reads up to the answer to one frame (events on the way are checked and skipped); returns the problems. */
async function answer(
  conn: Connection,
  expect: Expectation,
  outcomes: Record<string, number>,
  stampIds: string[],
): Promise<string[]> {
  for (;;) {
    const message = await conn.next();
    if (message === undefined) {
      count(outcomes, "no-answer");
      return [`no answer within ${ANSWER_TIMEOUT_MS} ms`];
    }
    if (message === "closed") {
      count(outcomes, `close:${conn.closeCode}`);
      if (expect.kind === "close" && conn.closeCode === expect.code) return [];
      return [
        `the connection was closed with ${conn.closeCode}${expect.kind === "close" ? `, not ${expect.code}` : ""}`,
      ];
    }
    if (!isAnswer(message, expect)) continue;
    count(outcomes, message.type === "error" ? `error:${String(message.data?.code)}` : message.type);
    if (message.type === "stamp_created" && typeof message.data?.id === "string")
      stampIds.push(message.data.id);
    return judge(message, expect);
  }
}

/** Replies carry the request's id; an error about a frame without a valid id carries none. Events never carry one. */
function isAnswer(message: Message, expect: Expectation): boolean {
  if (expect.kind === "close") return message.id !== undefined || message.type === "error";
  return expect.id !== undefined
    ? message.id === expect.id
    : message.type === "error" && message.id === undefined;
}

function judge(message: Message, expect: Expectation): string[] {
  if (expect.kind === "close")
    return [`a ${message.type} message where the connection had to be closed with ${expect.code}`];
  if (!expect.types.includes(message.type))
    return [`a ${message.type} reply, expected ${expect.types.join(" or ")}`];
  const code = String(message.data?.code);
  if (message.type === "error" && !expect.codes.includes(code))
    return [`error code ${code}, expected ${expect.codes.join(" or ")}`];
  return [];
}

function failure(index: number, frame: Frame, problems: string[]): FuzzFailure {
  const shown =
    typeof frame.data === "string"
      ? frame.data
      : `(${frame.binary ? "binary" : "text"} frame, base64) ${frame.data.toString("base64")}`;
  const target = typeof frame.data === "string" ? (/"type":("[^"]*")/.exec(frame.data)?.[1] ?? "?") : "?";
  return {
    surface: "ws",
    index,
    target,
    mutation: frame.mutation,
    request: shown.length > 4000 ? `${shown.slice(0, 4000)}… (${shown.length} characters)` : shown,
    problems,
  };
}
