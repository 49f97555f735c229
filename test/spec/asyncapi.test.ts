// Contract test of specs/asyncapi.yaml: it parses cleanly, carries every message and field of the seed
// (the interface specification stampd was first written to, not in this repository: its tables are
// transcribed below and are their record here), and gen/asyncapi/ is generated from it.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type AsyncAPIDocumentInterface, fromFile, type MessageInterface, Parser } from "@asyncapi/parser";
// ajv and ajv-formats come with express-openapi-validator; the server validates with them too.
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { clientMessageSchemas, serverMessageSchemas } from "../../gen/asyncapi/schemas.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const specPath = path.join(root, "specs/asyncapi.yaml");

type Field = { name: string; optional?: true };
const f = (...names: string[]): Field[] => names.map((name) => ({ name }));

// Client-to-server messages and the data fields the seed shows (unsubscribe and ping: "not shown").
const CLIENT: Record<string, Field[]> = {
  subscribe: [{ name: "channel" }, { name: "filters", optional: true }],
  unsubscribe: [{ name: "channel" }, { name: "filters", optional: true }],
  ping: [],
  stamp: [{ name: "contentHash" }, { name: "metadata", optional: true }],
  verify: f("stampId", "contentHash"),
};

// Server-to-client messages and their data fields (plus vault_expired, ours).
const SERVER: Record<string, Field[]> = {
  stamp_created: f("id", "contentHash", "timestamp", "metadata"),
  stamp_confirmed: f("stampId", "proof"),
  stamp_anchored: f("stampId", "chain", "txHash", "timestamp"),
  verification_result: f("stampId", "contentHash", "verified", "timestamp"),
  batch_progress: f("batchId", "processed", "total", "percentage"),
  // contentUris goes only to the vault's owner (docs/design.md, WebSocket).
  vault_created: [...f("vaultId", "state", "deadline"), { name: "contentUris", optional: true }],
  vault_heartbeat: f("vaultId", "heartbeatAt", "nextDeadline", "heartbeatCount"),
  vault_released: f("vaultId", "releasedAt", "reason"),
  // cause (ours) tells everyone why a vault was burned; reason is the owner's text, to the owner only.
  vault_burned: f("vaultId", "burnedAt", "reason", "cause"),
  vault_deadline_warning: f("vaultId", "deadline", "hoursRemaining", "state"),
  vault_expired: f("vaultId", "expiredAt", "deadline"),
  subscribed: f("channel", "filters"),
  unsubscribed: f("channel", "filters", "removed"),
  pong: [],
  error: [
    ...f("code", "message"),
    { name: "errors", optional: true },
    { name: "retryAfter", optional: true },
  ],
};

// JSON types of the seed's typed fields.
const TYPES: Record<string, Record<string, string>> = {
  stamp_confirmed: { proof: "object" },
  verification_result: { verified: "boolean" },
  batch_progress: { processed: "integer", total: "integer", percentage: "number" },
  vault_heartbeat: { heartbeatCount: "integer" },
  vault_deadline_warning: { hoursRemaining: "integer" },
  vault_created: { contentUris: "array" },
};

// The reply each client message gets (besides error).
const REPLY: Record<string, string> = {
  subscribe: "subscribed",
  unsubscribe: "unsubscribed",
  ping: "pong",
  stamp: "stamp_created",
  verify: "verification_result",
};

// The seed's channels, the filter key each takes, and the events it delivers.
const STAMP_EVENTS = ["stamp_created", "stamp_confirmed", "stamp_anchored"];
const VAULT_EVENTS = [
  "vault_created",
  "vault_heartbeat",
  "vault_released",
  "vault_expired",
  "vault_burned",
  "vault_deadline_warning",
];
const CHANNELS: Record<string, { filter: string | null; authentication: string; events: string[] }> = {
  all_stamps: { filter: null, authentication: "optional", events: STAMP_EVENTS },
  user_stamps: { filter: null, authentication: "required", events: STAMP_EVENTS },
  stamp: { filter: "stamp_id", authentication: "optional", events: ["stamp_confirmed", "stamp_anchored"] },
  batch: { filter: "batch_id", authentication: "optional", events: ["batch_progress"] },
  all_vaults: { filter: null, authentication: "optional", events: VAULT_EVENTS },
  user_vaults: { filter: null, authentication: "required", events: VAULT_EVENTS },
  vault: { filter: "vault_id", authentication: "optional", events: VAULT_EVENTS },
};

const ERROR_CODES = [
  "invalid_json",
  "duplicate_member_name",
  "invalid_message",
  "unknown_type",
  "unknown_channel",
  "invalid_filter",
  "unauthenticated",
  "too_many_subscriptions",
  "not_found",
  "rate_limited",
  "unavailable",
  "internal",
];

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema objects are walked dynamically.
type Schema = Record<string, any>;

/** The dereferenced payload schema of a message, and the `type` it carries. */
function payloadOf(message: MessageInterface): Schema {
  return message.payload()?.json() as Schema;
}
function typeOf(message: MessageInterface): string {
  return payloadOf(message).properties.type.const;
}

let document: AsyncAPIDocumentInterface;
let diagnostics: { severity: number; code: string | number; message: string }[];
/** Payload schema (dereferenced) of each message, by its `type` value. */
const payloads = new Map<string, Schema>();
const client = new Set<string>();
const server = new Set<string>();

beforeAll(async () => {
  const result = await fromFile(new Parser(), specPath).parse();
  diagnostics = result.diagnostics;
  if (!result.document) throw new Error(`spec does not parse: ${JSON.stringify(diagnostics, null, 2)}`);
  document = result.document;
  for (const message of document.allMessages()) payloads.set(typeOf(message), payloadOf(message));
  for (const operation of document.operations()) {
    const target = operation.action() === "receive" ? client : server;
    for (const m of operation.messages()) target.add(typeOf(m));
    for (const m of operation.reply()?.messages() ?? []) server.add(typeOf(m));
  }
});

describe("specs/asyncapi.yaml", () => {
  it("parses with no errors and no warnings", () => {
    const problems = diagnostics.filter((d) => d.severity <= 1);
    expect(problems.map((d) => `${d.code}: ${d.message}`)).toEqual([]);
    expect(document.version()).toBe("3.0.0");
  });

  it("serves /ws on ws://localhost:8080 and wss in production", () => {
    expect(
      document
        .channels()
        .all()
        .map((c) => c.address()),
    ).toEqual(["/ws"]);
    const servers = document.servers().all();
    expect(servers.map((s) => `${s.protocol()}://${s.host()}`)).toContain("ws://localhost:8080");
    expect(servers.some((s) => s.protocol() === "wss")).toBe(true);
  });

  it("accepts the API key as Bearer, X-API-Key or ?api_key=", () => {
    const schemes = document
      .components()
      .securitySchemes()
      .all()
      .map((s) => s.json());
    expect(schemes).toContainEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
    expect(schemes).toContainEqual(
      expect.objectContaining({ type: "httpApiKey", in: "header", name: "X-API-Key" }),
    );
    expect(schemes).toContainEqual(
      expect.objectContaining({ type: "httpApiKey", in: "query", name: "api_key" }),
    );
  });

  it("has exactly the client messages of the seed, received by the server", () => {
    expect([...client].sort()).toEqual(Object.keys(CLIENT).sort());
  });

  it("has exactly the server messages of part 6 (plus vault_expired), sent by the server", () => {
    expect([...server].sort()).toEqual(Object.keys(SERVER).sort());
  });

  it.each(Object.entries(REPLY))("answers %s with %s or error", (request, reply) => {
    const operation = document
      .operations()
      .all()
      .find((o) =>
        o
          .messages()
          .all()
          .some((m) => typeOf(m) === request),
      );
    expect(operation?.action()).toBe("receive");
    const replies = operation?.reply()?.messages().all().map(typeOf);
    expect(replies?.sort()).toEqual([reply, "error"].sort());
  });

  describe.each(Object.entries({ ...CLIENT, ...SERVER }))("message %s", (type, fields) => {
    const isServer = type in SERVER;

    it("is an envelope {type (const), data, id?, timestamp} with no other members", () => {
      const p = payloads.get(type)!;
      expect(p.type).toBe("object");
      expect(p.additionalProperties).toBe(false);
      expect(p.properties.type).toMatchObject({ type: "string", const: type });
      expect(p.properties.data.type).toBe("object");
      expect(p.required).toEqual(expect.arrayContaining(["type", ...(type === "ping" ? [] : ["data"])]));
      expect(p.required ?? []).not.toContain("id");
      if (p.properties.id) expect(p.properties.id).toMatchObject({ type: "string", maxLength: 128 });
      if (isServer) {
        expect(p.required).toContain("timestamp");
        expect(p.properties.timestamp).toMatchObject({ type: "string", format: "date-time" });
      } else {
        expect(p.properties.id).toBeDefined();
        expect(p.properties.timestamp).toBeUndefined();
      }
    });

    it("carries the seed's data fields, camelCase, required unless noted", () => {
      const data = payloads.get(type)!.properties.data;
      expect(Object.keys(data.properties ?? {}).sort()).toEqual(fields.map((x) => x.name).sort());
      for (const field of fields) {
        if (field.optional) expect(data.required ?? []).not.toContain(field.name);
        else expect(data.required).toContain(field.name);
      }
      for (const [name, jsonType] of Object.entries(TYPES[type] ?? {})) {
        expect(data.properties[name].type, name).toBe(jsonType);
      }
    });
  });

  it("gives proof {primeSignature, merkleRoot} in stamp_confirmed", () => {
    const proof = payloads.get("stamp_confirmed")!.properties.data.properties.proof;
    expect(Object.keys(proof.properties).sort()).toEqual(["merkleRoot", "primeSignature"]);
    expect(proof.required.sort()).toEqual(["merkleRoot", "primeSignature"]);
  });

  it("checks contentHash as <algorithm>:<64 hex> with sha3-256, sha256 and blake3", () => {
    const pattern = new RegExp(payloads.get("stamp")!.properties.data.properties.contentHash.pattern);
    const hex = "ab".repeat(32);
    for (const algorithm of ["sha3-256", "sha256", "blake3"])
      expect(pattern.test(`${algorithm}:${hex}`)).toBe(true);
    expect(pattern.test(`md5:${hex}`)).toBe(false);
    expect(pattern.test(`sha256:${hex.slice(2)}`)).toBe(false);
  });

  it("lists the error codes", () => {
    expect(payloads.get("error")!.properties.data.properties.code.enum).toEqual(ERROR_CODES);
  });

  it("names the seven channels, their filter keys (snake_case) and their events", () => {
    const channel = payloads.get("subscribe")!.properties.data.properties.channel;
    expect(channel.enum).toEqual(Object.keys(CHANNELS));
    const filters = payloads.get("subscribe")!.properties.data.properties.filters;
    expect(Object.keys(filters.properties).sort()).toEqual(["batch_id", "stamp_id", "vault_id"]);
    expect(filters.additionalProperties).toBe(false);
    const table = document.channels().all()[0]!.extensions().get("x-subscription-channels")?.value();
    expect(table).toBeDefined();
    for (const [name, want] of Object.entries(CHANNELS)) {
      expect(table[name], name).toMatchObject(want);
      for (const event of want.events) expect(server.has(event), event).toBe(true);
    }
    expect(Object.keys(table)).toEqual(Object.keys(CHANNELS));
  });

  it("has examples that match their payload schemas (as exported in gen/asyncapi/schemas.ts)", () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const schemas: Record<string, Schema> = { ...clientMessageSchemas, ...serverMessageSchemas };
    let count = 0;
    for (const message of document.allMessages()) {
      const validate = ajv.compile(schemas[typeOf(message)]!);
      for (const example of message.examples()) {
        count++;
        expect(
          validate(example.payload()),
          `${message.id()} ${example.name()}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
      }
    }
    expect(count).toBeGreaterThanOrEqual(Object.keys({ ...CLIENT, ...SERVER }).length);
  });
});

describe("gen/asyncapi", () => {
  it("is what scripts/gen-asyncapi.mjs generates from the spec", async () => {
    const out = await mkdtemp(path.join(tmpdir(), "gen-asyncapi-"));
    try {
      await promisify(execFile)(process.execPath, [path.join(root, "scripts/gen-asyncapi.mjs"), out]);
      const committed = path.join(root, "gen/asyncapi");
      const names = (await readdir(out)).sort();
      expect((await readdir(committed)).sort()).toEqual(names);
      for (const name of names) {
        const want = await readFile(path.join(out, name), "utf8");
        expect(
          await readFile(path.join(committed, name), "utf8"),
          `${name} is stale: run the generator`,
        ).toBe(want);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 30_000);

  it("exports a type for every message and the schemas of every client message", async () => {
    const messages = await readFile(path.join(root, "gen/asyncapi/messages.ts"), "utf8");
    for (const message of document.allMessages()) {
      expect(messages).toContain(`export interface ${payloadOf(message).title} {`);
    }
    expect(messages).toMatch(/export type ClientMessage =/);
    expect(messages).toMatch(/export type ServerMessage =/);
    expect(Object.keys(clientMessageSchemas).sort()).toEqual(Object.keys(CLIENT).sort());
    expect(Object.keys(serverMessageSchemas).sort()).toEqual(Object.keys(SERVER).sort());
    expect(JSON.stringify(clientMessageSchemas)).not.toContain("x-parser-");
  });
});
