import { Ajv, type ValidateFunction } from "ajv";
import fc from "fast-check";
import { findLoneSurrogate } from "../../../core/i-json.js";
import { jcs } from "../../../core/jcs.js";
import { clientMessageSchemas, subscriptionChannels } from "../../../gen/asyncapi/index.js";
import { depthOf, MAX_JSON_DEPTH } from "../json-depth.js";
import { anyJson, anyText, type Rng } from "../random.js";
import { SchemaValues } from "../schema-values.js";

type Json = Record<string, unknown>;
type ClientType = keyof typeof clientMessageSchemas;

/** What the server must do with a frame (specs/asyncapi.yaml). */
export type Expectation =
  /** Close the connection with this code (a frame it cannot read at all). */
  | { kind: "close"; code: number }
  /** Answer with exactly one of these message types (an `error` only with one of `codes`). */
  | { kind: "reply"; id?: string; types: string[]; codes: string[] };

export interface Frame {
  /** Text frames are strings; a Buffer is sent as is, as a text frame unless `binary`. */
  data: string | Buffer;
  binary?: boolean;
  mutation: string;
  expect: Expectation;
}

/** Replies of each client message type, and the error codes its operation documents. */
const replies: Record<ClientType, { type: string; codes: string[] }> = {
  subscribe: {
    type: "subscribed",
    codes: ["unknown_channel", "invalid_filter", "unauthenticated", "too_many_subscriptions"],
  },
  unsubscribe: { type: "unsubscribed", codes: ["unknown_channel", "invalid_filter"] },
  ping: { type: "pong", codes: [] },
  stamp: { type: "stamp_created", codes: ["rate_limited"] },
  verify: { type: "verification_result", codes: ["not_found", "rate_limited"] },
};
const types = Object.keys(clientMessageSchemas) as ClientType[];
const channelNames = Object.keys(subscriptionChannels) as (keyof typeof subscriptionChannels)[];
/** The deepest nesting the spec allows a client message. */
/** WS_MAX_PAYLOAD's default, 64 KiB. */
const MAX_PAYLOAD = 64 * 1024;

/**
 * Client frames from specs/asyncapi.yaml: valid messages drawn from the message schemas
 * (json-schema-faker, confirmed by ajv) and mutated ones, each with what the spec says the server
 * must answer. The verdict comes from the schemas and the spec's error rules, not from the server.
 */
export class FrameMaker {
  private readonly ajv = new Ajv({ strict: false });
  private readonly checks = Object.fromEntries(
    types.map((t) => [t, this.ajv.compile(clientMessageSchemas[t])]),
  ) as Record<ClientType, ValidateFunction>;
  private readonly values = new SchemaValues();

  constructor(private readonly liveStampIds: () => string[]) {}

  make(rng: Rng, id: string, authenticated: boolean): Frame {
    const type = rng.pick(types);
    const message = this.valid(rng, type, id);
    const fatal = rng.chance(0.04);
    if (fatal) return this.fatal(rng, message);
    if (rng.chance(0.4)) return this.judge(JSON.stringify(message), "valid", authenticated);
    return this.mutate(rng, message, authenticated);
  }

  private valid(rng: Rng, type: ClientType, id: string): Json {
    const message = (this.values.valid(rng, clientMessageSchemas[type] as Json, this.checks[type]) ?? {
      type,
    }) as Json;
    const live = this.liveStampIds();
    const data = message.data as Json | undefined;
    if (type === "verify" && data && live.length > 0 && rng.chance(0.6)) data.stampId = rng.pick(live);
    if (type === "subscribe" && data && rng.chance(0.5)) this.fitFilters(rng, data);
    return { ...message, id };
  }

  /** Makes the filters fit the channel, so valid subscriptions are not mostly `invalid_filter`. */
  private fitFilters(rng: Rng, data: Json): void {
    const channel = subscriptionChannels[data.channel as keyof typeof subscriptionChannels];
    if (!channel?.filter) delete data.filters;
    else if (channel.filter === "stamp_id" && this.liveStampIds().length > 0)
      data.filters = { stamp_id: rng.pick(this.liveStampIds()) };
  }

  private fatal(rng: Rng, message: Json): Frame {
    const choice = rng.int(3);
    if (choice === 0) {
      const data = JSON.stringify({ ...message, pad: "x".repeat(MAX_PAYLOAD) });
      return { data, mutation: "frame over WS_MAX_PAYLOAD", expect: { kind: "close", code: 1009 } };
    }
    if (choice === 1) {
      return {
        data: Buffer.from(JSON.stringify(message)),
        binary: true,
        mutation: "binary frame",
        expect: { kind: "close", code: 1003 },
      };
    }
    const bad = Buffer.concat([
      Buffer.from('{"type":"ping","id":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    return { data: bad, mutation: "text frame not UTF-8", expect: { kind: "close", code: 1007 } };
  }

  private mutate(rng: Rng, message: Json, authenticated: boolean): Frame {
    const choice = rng.int(11);
    const edited = structuredClone(message);
    const data = (edited.data ?? {}) as Json;
    switch (choice) {
      case 0:
        return this.judge(
          JSON.stringify({ ...message, type: rng.draw(anyText) }),
          "unknown type",
          authenticated,
        );
      case 1:
        return this.judge(
          JSON.stringify({ ...message, type: rng.draw(anyJson) }),
          "type not a string",
          authenticated,
        );
      case 2: {
        const text = JSON.stringify(message);
        const broken = rng.pick([text.slice(0, rng.int(text.length)), `${text},`, "", "nul", "'x'"]);
        return {
          data: broken,
          mutation: "invalid JSON",
          expect: { kind: "reply", types: ["error"], codes: ["invalid_json"] },
        };
      }
      case 3: {
        const value = rng.pick([[message], "text", 1, null, true]);
        return {
          data: JSON.stringify(value),
          mutation: "JSON but not an object",
          expect: { kind: "reply", types: ["error"], codes: ["invalid_json"] },
        };
      }
      case 4: {
        const levels = rng.pick([61, 62, 63, 100, 10_000, 30_000]);
        const text = `{"type":"ping","id":${JSON.stringify(message.id)},"data":{"a":${"[".repeat(levels)}${"]".repeat(levels)}}}`;
        return this.judge(text, `nesting ${levels + 2} deep`, authenticated);
      }
      case 10: {
        // I-JSON (RFC 7493): a name given twice, the copy first, so first- and last-wins readers differ.
        const name = rng.pick(Object.keys(message));
        const text = JSON.stringify(message);
        // The id is echoed when it is not the name repeated: only then is it unambiguous.
        const id = name === "id" ? undefined : validId(message.id);
        return {
          data: `{${JSON.stringify(name)}:${JSON.stringify(rng.draw(anyJson))},${text.slice(1)}`,
          mutation: "a member named twice",
          expect: { kind: "reply", id, types: ["error"], codes: ["duplicate_member_name"] },
        };
      }
      case 5:
        edited.extra = rng.draw(anyJson);
        break;
      case 6:
        if (Object.keys(data).length > 0) delete data[rng.pick(Object.keys(data))];
        else delete edited.data;
        break;
      case 7:
        edited.data = {
          ...data,
          [rng.pick([...Object.keys(data), "channel", "filters", "contentHash", "stampId"])]:
            rng.draw(anyJson),
        };
        break;
      case 8:
        edited.data = {
          ...data,
          channel: rng.pick([...channelNames, "nope", ""]),
          filters: rng.draw(filtersArb),
        };
        break;
      default:
        edited.id = rng.pick(["", "x".repeat(129), 7, null]);
    }
    const mutation = ["extra field", "missing field", "wrong value", "channel and filters", "bad id"][
      choice - 5
    ]!;
    return this.judge(JSON.stringify(edited), mutation, authenticated);
  }

  /** The spec's answer to a frame holding a JSON object: read as the spec says the server reads it. */
  private judge(data: string, mutation: string, authenticated: boolean): Frame {
    const parsed = JSON.parse(data) as Json;
    const id = validId(parsed.id);
    const reply = (types: string[], codes: string[]): Frame => ({
      data,
      mutation,
      expect: { kind: "reply", id, types, codes },
    });
    // I-JSON strings are valid Unicode (RFC 7493 section 2.1): the spec's invalid_json.
    if (findLoneSurrogate(data)) return reply(["error"], ["invalid_json"]);
    if (typeof parsed.type !== "string") return reply(["error"], ["invalid_message"]);
    const known = Object.hasOwn(replies, parsed.type);
    // "A client message may nest objects and arrays at most 64 levels deep" (which check comes first is open).
    if (depthOf(parsed) > MAX_JSON_DEPTH)
      return reply(["error"], known ? ["invalid_message"] : ["invalid_message", "unknown_type"]);
    if (!known) return reply(["error"], ["unknown_type"]);
    const type = parsed.type as ClientType;
    const check = this.checks[type];
    if (!check(parsed)) return reply(["error"], [schemaErrorCode(check)]);
    const refusals =
      type === "subscribe"
        ? subscribeRefusals(parsed, authenticated)
        : type === "stamp"
          ? stampRefusals(parsed)
          : [];
    if (refusals.length > 0) return reply(["error"], refusals);
    const { type: replyType, codes } = replies[type];
    return reply([replyType, ...(codes.length > 0 ? ["error"] : [])], codes);
  }
}

const filtersArb = fc.oneof(
  fc.constant(undefined),
  fc.constant({}),
  fc.record({ stamp_id: fc.constantFrom("stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8", "stp_x") }),
  fc.record({ vault_id: fc.constantFrom("vlt_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8", "") }),
  fc.record({ batch_id: fc.string() }),
  fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 2 }),
);

/** "A schema violation under /data/channel answers unknown_channel, under /data/filters invalid_filter, anywhere else invalid_message." */
function schemaErrorCode(check: ValidateFunction): string {
  const paths = (check.errors ?? []).map((e) => e.instancePath);
  if (paths.some((p) => p.startsWith("/data/channel"))) return "unknown_channel";
  if (paths.some((p) => p.startsWith("/data/filters"))) return "invalid_filter";
  return "invalid_message";
}

/**
 * StampRequestMetadata: a value that is not a string "is recorded as its RFC 8785 (JCS) JSON text
 * ... Each recorded value is at most 512 characters (error `invalid_message` otherwise)".
 */
function stampRefusals(message: Json): string[] {
  const metadata = ((message.data as Json).metadata ?? {}) as Json;
  const recorded = Object.values(metadata).map((v) => (typeof v === "string" ? v : jcs(v)));
  return recorded.some((text) => [...text].length > 512) ? ["invalid_message"] : [];
}

/** Why a schema-valid subscribe must be refused (the channel rules of the spec), if it must. */
function subscribeRefusals(message: Json, authenticated: boolean): string[] {
  const data = message.data as { channel: keyof typeof subscriptionChannels; filters?: Json };
  const channel = subscriptionChannels[data.channel];
  const keys = Object.keys(data.filters ?? {});
  const fits = channel.filter ? keys.length === 1 && keys[0] === channel.filter : keys.length === 0;
  const needsKey = channel.authentication === "required" && !authenticated;
  return [...(fits ? [] : ["invalid_filter"]), ...(needsKey ? ["unauthenticated"] : [])];
}

/** How deep objects and arrays nest in a parsed message (the message itself is level 1). */
/** A request id the spec echoes: a string of 1 to 128 characters, valid Unicode. */
function validId(id: unknown): string | undefined {
  return typeof id === "string" &&
    id.length >= 1 &&
    id.length <= 128 &&
    !findLoneSurrogate(JSON.stringify(id))
    ? id
    : undefined;
}
