import zlib from "node:zlib";
import fc from "fast-check";
import type { OperationModel } from "../../../cli/conformance/spec-model.js";
import { multipart, type Part } from "../../helpers/multipart.js";
import { anyJson, anyText, nastyStrings, type Rng } from "../random.js";
import type { RequestParts } from "./request.js";
import { anonymous } from "./valid-parts.js";

/** One way of spoiling (or stretching) a valid request. Mutations edit the parts in place. */
export interface Mutation {
  name: string;
  applies(op: OperationModel, parts: RequestParts): boolean;
  apply(parts: RequestParts, rng: Rng, op: OperationModel): void;
}

type Path = (string | number)[];
type Json = Record<string, unknown>;

const isJson = (_: OperationModel, p: RequestParts) => p.body.kind === "json";
/** The Content-Encodings the server reads JSON bodies in (express.json's), each with its encoder. */
const codings: [string, (bytes: Buffer) => Buffer][] = [
  ["gzip", (b) => zlib.gzipSync(b)],
  ["deflate", (b) => zlib.deflateSync(b)],
  ["br", (b) => zlib.brotliCompressSync(b)],
];
const isMultipart = (_: OperationModel, p: RequestParts) => p.body.kind === "multipart";
const jsonValue = (p: RequestParts) => (p.body as { value: unknown }).value;
const partsOf = (p: RequestParts) => (p.body as { parts: Part[] }).parts;
const hasFile = (p: RequestParts) =>
  p.body.kind === "multipart" && partsOf(p).some((x) => x.filename !== undefined);

/** 1.1 MiB: over MAX_JSON_BYTES and the 1 MiB multipart text field limit. */
const OVER_A_MEBIBYTE = 1024 * 1024 + 100 * 1024;
const hugeText = (rng: Rng) => "x".repeat(rng.pick([70_000, OVER_A_MEBIBYTE]));

export const mutations: Mutation[] = [
  // ------------------------------------------------------------------ JSON bodies
  {
    name: "body: wrong type",
    applies: isJson,
    apply(p, rng) {
      p.body = { kind: "json", value: replaceAt(jsonValue(p), rng, (old) => otherType(old, rng)) };
    },
  },
  {
    name: "body: missing field",
    applies: (_, p) => isJson(_, p) && objectPaths(jsonValue(p)).some(([, o]) => Object.keys(o).length > 0),
    apply(p, rng) {
      const candidates = objectPaths(jsonValue(p)).filter(([, o]) => Object.keys(o).length > 0);
      const [, target] = rng.pick(candidates);
      delete target[rng.pick(Object.keys(target))];
    },
  },
  {
    name: "body: extra field",
    applies: (_, p) => isJson(_, p) && objectPaths(jsonValue(p)).length > 0,
    apply(p, rng) {
      const [, target] = rng.pick(objectPaths(jsonValue(p)));
      target[rng.draw(fc.oneof(anyText, fc.constantFrom("__proto__", "constructor", "x")))] =
        rng.draw(anyJson);
    },
  },
  {
    name: "body: huge string",
    applies: isJson,
    apply(p, rng) {
      p.body = { kind: "json", value: replaceString(jsonValue(p), rng, () => hugeText(rng)) };
    },
  },
  {
    name: "body: nasty text",
    applies: isJson,
    apply(p, rng) {
      p.body = { kind: "json", value: replaceString(jsonValue(p), rng, () => rng.draw(anyText)) };
    },
  },
  {
    name: "body: extreme number",
    applies: isJson,
    apply(p, rng) {
      const extreme = () => rng.pick([-1, 0, 0.5, 1e-300, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 315360001]);
      p.body = { kind: "json", value: replaceAt(jsonValue(p), rng, extreme) };
    },
  },
  {
    name: "body: not an object",
    applies: isJson,
    apply(p, rng) {
      p.body = { kind: "json", value: rng.pick([[], [jsonValue(p)], "text", 0, null, true]) };
    },
  },
  {
    name: "body: deep nesting",
    applies: (op) => op.body.has("application/json"),
    apply(p, rng) {
      // Inside the body, where free-form fields (stamp_json, metadata) take it further than the top level.
      const depth = rng.pick([64, 5_000, 100_000]);
      const marker = "\u0000deep\u0000";
      const marked = p.body.kind === "json" ? replaceAt(p.body.value, rng, () => marker) : marker;
      const text = JSON.stringify(marked).replace(
        JSON.stringify(marker),
        `${"[".repeat(depth)}${"]".repeat(depth)}`,
      );
      p.body = { kind: "raw", bytes: Buffer.from(text), contentType: "application/json" };
    },
  },
  {
    name: "body: malformed JSON",
    applies: isJson,
    apply(p, rng) {
      const text = JSON.stringify(jsonValue(p));
      const cut = text.slice(0, rng.int(text.length));
      const broken = rng.pick([cut, `${text}}`, `${text} x`, text.replaceAll('"', "'"), "{,}", "\u0000"]);
      p.body = { kind: "raw", bytes: Buffer.from(broken), contentType: "application/json" };
    },
  },
  {
    // RFC 7493 (I-JSON): a repeated name, before the original and with another value, so that a
    // reader keeping the first and one keeping the last disagree (issue #21: a backdated
    // created_at in a stamp document verified).
    name: "body: a member named twice",
    applies: (_, p) => isJson(_, p) && objectPaths(jsonValue(p)).length > 0,
    apply(p, rng) {
      // A copy: generated bodies may share objects (examples), and a marker left in a shared one
      // would reach a later request without its repeated member.
      const value = JSON.parse(JSON.stringify(jsonValue(p))) as unknown;
      const [, target] = rng.pick(objectPaths(value));
      const names = Object.keys(target);
      const name = names.length > 0 ? rng.pick(names) : "x";
      const marker = "\u0000repeat\u0000";
      // The marker first in the object, the original members after it in their order.
      const entries = Object.entries(target);
      for (const key of names) delete target[key];
      target[marker] = 0;
      // defineProperty: a `__proto__` member stays a member, not the object's prototype.
      for (const [key, value] of entries)
        Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
      const repeated = `${rng.pick([JSON.stringify(name), escapedName(name)])}:${JSON.stringify(rng.draw(anyJson))}`;
      const pair = names.length > 0 ? repeated : `${repeated},${JSON.stringify(name)}:1`;
      const text = JSON.stringify(value).replace(`${JSON.stringify(marker)}:0`, pair);
      p.body = { kind: "raw", bytes: Buffer.from(text), contentType: "application/json" };
      p.broken = "a member named twice in one object (RFC 7493)";
    },
  },
  {
    name: "body: not UTF-8",
    applies: isJson,
    apply(p, rng) {
      const text = Buffer.from(JSON.stringify(jsonValue(p)));
      const at = text.indexOf('"') + 1;
      const junk = Buffer.from(
        rng.pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80]]),
      );
      const bytes = at > 0 ? Buffer.concat([text.subarray(0, at), junk, text.subarray(at)]) : junk;
      p.body = { kind: "raw", bytes, contentType: "application/json" };
    },
  },
  {
    // Issue #35 item 7: a gzip body that did not inflate answered zlib's bare message, no code.
    name: "body: content-encoded",
    applies: isJson,
    apply(p, rng) {
      const text = Buffer.from(JSON.stringify(jsonValue(p)));
      const [contentEncoding, encode] = rng.pick(codings);
      const coded = encode(text);
      const broken = rng.pick([
        undefined,
        { bytes: text, why: "a body that is not its Content-Encoding" },
        { bytes: coded.subarray(0, Math.max(1, coded.length >> 1)), why: "an encoded body cut short" },
      ]);
      p.body = {
        kind: "raw",
        bytes: broken?.bytes ?? coded,
        contentType: "application/json",
        contentEncoding,
      };
      if (broken) p.broken = broken.why;
    },
  },
  {
    name: "body: empty",
    applies: (op) => op.body.size > 0,
    apply(p, rng, op) {
      const form = !op.body.has("application/json");
      const contentType = rng.pick([
        form ? "multipart/form-data; boundary=b" : "application/json",
        undefined,
      ]);
      p.body = { kind: "raw", bytes: Buffer.alloc(0), contentType };
      // An empty multipart body is no form at all: required forms fail, whether an optional one may be empty the spec does not say.
      if (form && contentType && !op.bodyRequired) p.unsure = "empty body of an optional form";
      else if (form && contentType) p.broken = "empty multipart body";
    },
  },
  {
    name: "body: wrong content type",
    applies: (op) => op.body.size > 0,
    apply(p, rng) {
      const bytes =
        p.body.kind === "json" ? Buffer.from(JSON.stringify(p.body.value)) : Buffer.from("a=1&b=%FF");
      const contentType = rng.pick([
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
        "application/octet-stream",
        "application/json; charset=utf-16",
        "multipart/mixed; boundary=x",
        "*/*",
        "",
        undefined,
      ]);
      p.body = { kind: "raw", bytes, contentType };
    },
  },
  // ----------------------------------------------------------------- multipart
  {
    // Parts come in any order: the file moved among the fields is as valid as before, and a bad
    // field after it is refused like one before it.
    name: "multipart: field after file",
    applies: (_, p) => hasFile(p),
    apply(p, rng) {
      const parts = partsOf(p);
      const [file] = parts.splice(
        parts.findIndex((x) => x.filename !== undefined),
        1,
      );
      parts.splice(rng.int(parts.length + 1), 0, file!);
      if (rng.chance(0.5))
        parts.push({ name: rng.pick(["preset", "method", "algorithm", "version", "x"]), value: "late" });
    },
  },
  {
    name: "multipart: no file",
    applies: (_, p) => hasFile(p),
    apply(p) {
      p.body = { kind: "multipart", parts: partsOf(p).filter((x) => x.filename === undefined) };
    },
  },
  {
    name: "multipart: file without file name",
    applies: (_, p) => hasFile(p),
    apply(p) {
      for (const part of partsOf(p)) if (part.filename !== undefined) delete part.filename;
    },
  },
  {
    name: "multipart: second file",
    applies: (_, p) => hasFile(p),
    apply(p, rng) {
      partsOf(p).push({ name: rng.pick(["file", "other"]), value: "second", filename: "2.txt" });
    },
  },
  {
    name: "multipart: repeated field",
    applies: (_, p) => isMultipart(_, p) && partsOf(p).some((x) => x.filename === undefined),
    apply(p) {
      const parts = partsOf(p);
      const field = parts.find((x) => x.filename === undefined)!;
      parts.unshift({ ...field });
    },
  },
  {
    name: "multipart: unknown field",
    applies: isMultipart,
    apply(p, rng) {
      partsOf(p).unshift({
        name: rng.draw(fc.constantFrom("x", "FILE", "preset ", "__proto__")),
        value: "1",
      });
    },
  },
  {
    name: "multipart: too many fields",
    applies: isMultipart,
    apply(p) {
      const extra = Array.from({ length: 17 }, (_, i) => ({ name: `f${i}`, value: "v" }));
      partsOf(p).unshift(...extra);
    },
  },
  {
    name: "multipart: bad field value",
    applies: (_, p) => isMultipart(_, p) && partsOf(p).some((x) => x.filename === undefined),
    apply(p, rng) {
      const field = rng.pick(partsOf(p).filter((x) => x.filename === undefined));
      field.value = rng.draw(
        fc.oneof(anyText, fc.constantFrom("-1", "101", "1.5", "yes", "{}", "[]", "maybe")),
      );
    },
  },
  {
    name: "multipart: huge field",
    applies: isMultipart,
    apply(p, rng) {
      const fields = partsOf(p).filter((x) => x.filename === undefined);
      const target = fields.length > 0 ? rng.pick(fields) : undefined;
      if (target) target.value = hugeText(rng);
      else partsOf(p).unshift({ name: "version", value: hugeText(rng) });
    },
  },
  {
    name: "multipart: stamp_json names a member twice",
    applies: (_, p) =>
      isMultipart(_, p) && partsOf(p).some((x) => x.name === "stamp_json" && isObjectText(x.value)),
    apply(p, rng) {
      const field = partsOf(p).find((x) => x.name === "stamp_json")!;
      const text = String(field.value);
      const names = Object.keys(JSON.parse(text) as Json);
      const name = names.length > 0 ? rng.pick(names) : "created_at";
      const repeated = `${JSON.stringify(name)}:${JSON.stringify(rng.draw(anyJson))}`;
      const start = text.indexOf("{") + 1;
      const pair = names.length > 0 ? `${repeated},` : `${repeated},${repeated}`;
      field.value = text.slice(0, start) + pair + text.slice(start);
      p.broken = "stamp_json names a member twice (RFC 7493)";
    },
  },
  {
    name: "multipart: truncated",
    applies: isMultipart,
    apply(p, rng) {
      const { body, contentType } = multipart(partsOf(p));
      p.body = { kind: "raw", bytes: body.subarray(0, rng.int(body.length - 4)), contentType };
      p.broken = "truncated multipart body";
    },
  },
  {
    name: "multipart: no parts",
    applies: isMultipart,
    apply(p) {
      p.body = { kind: "multipart", parts: [] };
    },
  },
  {
    name: "multipart: broken framing",
    applies: isMultipart,
    apply(p, rng) {
      const { body, contentType } = multipart(partsOf(p));
      const choice = rng.int(3);
      if (choice === 0) p.body = { kind: "raw", bytes: body, contentType: "multipart/form-data" };
      if (choice === 1)
        p.body = { kind: "raw", bytes: body, contentType: "multipart/form-data; boundary=other" };
      if (choice === 2) p.body = { kind: "raw", bytes: Buffer.from("not a multipart body"), contentType };
      p.broken = "multipart body without a matching boundary";
    },
  },
  {
    name: "multipart: sent as JSON",
    applies: isMultipart,
    apply(p) {
      const fields = Object.fromEntries(partsOf(p).map((x) => [x.name, String(x.value)]));
      p.body = { kind: "json", value: fields };
    },
  },
  // ---------------------------------------------------------------- parameters
  {
    name: "path: bad value",
    applies: (op) => op.params.some((x) => x.in === "path"),
    apply(p, rng) {
      const name = rng.pick(Object.keys(p.pathParams));
      const good = p.pathParams[name]!;
      // Never empty: `/presets/` is another operation's path (`/presets`), not a bad `name`.
      p.pathParams[name] = rng.draw(
        fc
          .oneof(
            anyText,
            fc.constantFrom(good.toLowerCase(), `${good}0`, good.slice(0, -1), "..", ".", "x".repeat(4096)),
          )
          .filter((s) => s.length > 0),
      );
    },
  },
  {
    name: "path: bad percent-encoding",
    applies: (op) => op.params.some((x) => x.in === "path"),
    apply(p, rng) {
      const name = rng.pick(Object.keys(p.pathParams));
      p.rawPathParams = { [name]: rng.pick(["%", "%ZZ", "%C0%AF", "%E0%A4%A", "%FF", "a%2Fb", "%00"]) };
    },
  },
  {
    name: "query: bad value",
    applies: (op) => op.params.some((x) => x.in === "query"),
    apply(p, rng, op) {
      const param = rng.pick(op.params.filter((x) => x.in === "query"));
      p.query = p.query.filter(([n]) => n !== param.name);
      const value = rng.draw(
        fc.oneof(anyText, fc.constantFrom("-1", "1e3", "0x10", "1.5", "99999999999999999999", "true", "")),
      );
      p.query.push([param.name, value]);
    },
  },
  {
    name: "query: unknown parameter",
    applies: () => true,
    apply(p, rng) {
      p.query.push([
        rng.draw(fc.oneof(fc.constantFrom("debug", "limit", "__proto__", "x"), anyText)),
        rng.draw(anyText),
      ]);
    },
  },
  {
    name: "query: repeated parameter",
    applies: (_, p) => p.query.length > 0,
    apply(p, rng) {
      p.query.push(rng.pick(p.query));
    },
  },
  {
    name: "header: bad Idempotency-Key",
    applies: (op) => op.params.some((x) => x.name === "Idempotency-Key"),
    apply(p, rng) {
      p.headers["Idempotency-Key"] = rng.pick(["", "has space", "caf\u00e9", "x".repeat(256), "\t"]);
    },
  },
  // --------------------------------------------------------------- authentication
  {
    name: "auth: no key",
    applies: () => true,
    apply(p, rng) {
      p.auth = anonymous(rng);
    },
  },
  {
    name: "auth: bad key",
    applies: () => true,
    apply(p, rng) {
      const value = rng.pick([
        `svc_live_${"A".repeat(43)}`,
        `svc_test_${"_".repeat(43)}`,
        "svc_live_short",
        "sk_live_0123456789",
        ...nastyStrings.filter((s) => s.trim().length > 0 && /^[\x21-\x7e]+$/.test(s)),
      ]);
      const { clientIp } = anonymous(rng) as { clientIp: string };
      p.auth = { kind: "bad", header: rng.pick(["bearer", "x-api-key"] as const), value, clientIp };
    },
  },
];

/** Paths to every object in a JSON value (the value itself included), with the objects. */
/** `name` as JSON with its first character as a \\u escape: the same name, spelled otherwise. */
function escapedName(name: string): string {
  if (name.length === 0) return '""';
  const first = `\\u${name.charCodeAt(0).toString(16).padStart(4, "0")}`;
  return `"${first}${JSON.stringify(name.slice(1)).slice(1)}`;
}

function isObjectText(value: string | Uint8Array): boolean {
  try {
    const parsed: unknown = JSON.parse(String(value));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

function objectPaths(value: unknown, path: Path = []): [Path, Json][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => objectPaths(v, [...path, i]));
  if (typeof value !== "object" || value === null) return [];
  const obj = value as Json;
  return [[path, obj], ...Object.entries(obj).flatMap(([k, v]) => objectPaths(v, [...path, k]))];
}

/** Paths to every value in a JSON value. */
function valuePaths(value: unknown, path: Path = []): Path[] {
  const own = path.length > 0 ? [path] : [];
  if (Array.isArray(value)) return [...own, ...value.flatMap((v, i) => valuePaths(v, [...path, i]))];
  if (typeof value === "object" && value !== null) {
    return [...own, ...Object.entries(value).flatMap(([k, v]) => valuePaths(v, [...path, k]))];
  }
  return own;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((at, key) => (at as Json)[key as string], value);
}

/** A copy of `value` with one value (or the whole, when it has no inner values) replaced. */
function replaceAt(
  value: unknown,
  rng: Rng,
  make: (old: unknown) => unknown,
  filter = (_: unknown) => true,
): unknown {
  const paths = valuePaths(value).filter((path) => filter(getAt(value, path)));
  if (paths.length === 0) return make(value);
  const path = rng.pick(paths);
  const copy = structuredClone(value);
  const parent = getAt(copy, path.slice(0, -1)) as Json;
  parent[path.at(-1) as string] = make(parent[path.at(-1) as string]);
  return copy;
}

/** Replaces a string value, or adds a string where there is none (an object gains a field). */
function replaceString(value: unknown, rng: Rng, make: () => string): unknown {
  const hasString = valuePaths(value).some((path) => typeof getAt(value, path) === "string");
  if (hasString) return replaceAt(value, rng, make, (v) => typeof v === "string");
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return { ...value, extra: make() };
  return make();
}

function otherType(old: unknown, rng: Rng): unknown {
  const candidates: unknown[] = ["1", 1, 1.5, true, null, [], {}, [old]];
  return rng.pick(
    candidates.filter((c) => typeof c !== typeof old || Array.isArray(c) !== Array.isArray(old)),
  );
}
