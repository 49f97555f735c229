import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import {
  DuplicateMemberError,
  findLoneSurrogate,
  LoneSurrogateError,
  MAX_JSON_DEPTH,
  NestingTooDeepError,
  parseIJson,
} from "../../core/i-json.js";
import {
  type ClientMessage,
  type ClientMessageType,
  clientMessageSchemas,
  type ErrorCode,
  type ValidationIssue,
} from "../../gen/asyncapi/index.js";
import { WsErrorReply } from "./ws-error.js";

export type ParsedFrame =
  | { ok: true; message: ClientMessage }
  | { ok: false; id: string | undefined; error: WsErrorReply };

// allErrors: a client fixing a message sees every problem at once, not one per round trip.
const ajv = new Ajv({ allErrors: true });
const validators = Object.fromEntries(
  Object.entries(clientMessageSchemas).map(([type, schema]) => [type, ajv.compile(schema)]),
) as Record<ClientMessageType, ValidateFunction<ClientMessage>>;

/**
 * Reads one text frame as a client message, validated strictly against specs/asyncapi.yaml.
 * A failure carries the frame's `id` when it had a valid one, so the error reply can echo it.
 */
export function parseFrame(text: string): ParsedFrame {
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch (err) {
    // A repeated name could make this server and another reader of the frame see different values.
    if (err instanceof DuplicateMemberError) {
      const id = err.pointer === "" && err.member === "id" ? undefined : idOfParsable(text);
      return failure(id, "duplicate_member_name", err.message);
    }
    if (err instanceof LoneSurrogateError) return failure(idOfParsable(text), "invalid_json", err.message);
    // specs/asyncapi.yaml, Envelope: a ping's data is echoed, and serializing a deeper value
    // could exhaust the stack.
    if (err instanceof NestingTooDeepError) {
      return failure(
        idOfParsable(text),
        "invalid_message",
        `the message nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    return failure(undefined, "invalid_json", "the frame is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return failure(undefined, "invalid_json", "the frame is not a JSON object");
  }
  const frame = value as Record<string, unknown>;
  const id = validId(frame.id);
  if (typeof frame.type !== "string") return failure(id, "invalid_message", "type must be a string");
  const validate = Object.hasOwn(validators, frame.type)
    ? validators[frame.type as ClientMessageType]
    : undefined;
  if (!validate) {
    return failure(id, "unknown_type", `unknown message type ${JSON.stringify(frame.type)}`);
  }
  if (validate(frame)) return { ok: true, message: frame };
  const issues = (validate.errors ?? []).map(issueOf);
  const code = codeOf(validate.errors ?? []);
  return failure(id, code, `the message does not match the schema of ${frame.type}`, issues);
}

function failure(
  id: string | undefined,
  code: ErrorCode,
  message: string,
  errors?: ValidationIssue[],
): ParsedFrame {
  return { ok: false, id, error: new WsErrorReply(code, message, errors) };
}

function validId(id: unknown): string | undefined {
  return typeof id === "string" &&
    id.length >= 1 &&
    id.length <= 128 &&
    !findLoneSurrogate(JSON.stringify(id))
    ? id
    : undefined;
}

/**
 * The id of a frame JavaScript parses but I-JSON refuses (a repeated name elsewhere than `id`, a
 * lone surrogate elsewhere than in it): the id is unambiguous, and the spec echoes a valid one.
 */
function idOfParsable(text: string): string | undefined {
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? validId((value as Record<string, unknown>).id)
    : undefined;
}

/** Where the violation is decides the code (docs/design.md, WebSocket). */
function codeOf(errors: ErrorObject[]): ErrorCode {
  const under = (prefix: string) =>
    errors.some((e) => e.instancePath === prefix || e.instancePath.startsWith(`${prefix}/`));
  if (under("/data/channel")) return "unknown_channel";
  if (under("/data/filters")) return "invalid_filter";
  return "invalid_message";
}

/** A JSON pointer to the offending member itself, also for missing and unexpected properties. */
function issueOf(e: ErrorObject): ValidationIssue {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  const member = params.missingProperty ?? params.additionalProperty;
  const path = member === undefined ? e.instancePath : `${e.instancePath}/${member}`;
  return { path, message: e.message ?? "invalid" };
}
