import zlib from "node:zlib";
import type { ValidateFunction } from "ajv";
import type { OperationModel, SpecModel } from "../../../cli/conformance/spec-model.js";
import { findLoneSurrogate } from "../../../core/i-json.js";
import type { Part } from "../../helpers/multipart.js";
import { depthOf, MAX_JSON_DEPTH } from "../json-depth.js";
import type { RequestParts, Verdict } from "./request.js";
import { type ServerState, semanticProblems } from "./semantics.js";

/** Body limits of the server the fuzzer runs against (the spec's documented defaults). */
export interface Limits {
  maxJsonBytes: number;
  maxFingerprintJsonBytes: number;
}

/** The spec's multipart rules (info.description, "Multipart rules"). */
const MAX_FORM_FIELDS = 16;
const MAX_FIELD_BYTES = 1024 * 1024;
const FINGERPRINT_BODIES = new Set(["compareFingerprints", "createFingerprintProof"]);

/**
 * What the spec says about a request: valid (to be accepted), invalid (to be refused with a 4xx,
 * and why) or open. Judged from the parts with the spec's own validators and the rules its prose
 * states, independently of how the request was made.
 */
export class Classifier {
  private readonly forms = new Map<string, ValidateFunction>();

  constructor(
    private readonly model: SpecModel,
    private readonly limits: Limits,
    private readonly state: ServerState,
  ) {}

  classify(op: OperationModel, parts: RequestParts, wireBytes: Buffer | undefined): Verdict {
    const bodyBytes = decoded(parts, wireBytes);
    // A refused key is answered before anything else is looked at.
    if (parts.auth.kind === "bad")
      return { kind: "invalid", reasons: ["a malformed or unknown key"], status: 401 };
    const reasons = [
      ...(parts.broken ? [parts.broken] : []),
      ...this.paramProblems(op, parts),
      ...this.bodyProblems(op, parts, bodyBytes),
    ];
    if (reasons.length === 0) {
      // A mutation writes its JSON as raw bytes (deep nesting, a repeated member): the prose
      // rules read what the server will parse, whichever way it was written.
      const body = parts.body.kind === "json" ? parts.body.value : bodyBytes && parseJson(bodyBytes);
      reasons.push(...semanticProblems(op.operationId, { body, query: parts.query, state: this.state }));
    }
    const missingKey = this.missingKey(op, parts);
    // Alone, each of these fixes the status; with other faults, which one the server meets first is its own affair.
    if (missingKey)
      return {
        kind: "invalid",
        reasons: [missingKey, ...reasons],
        ...(reasons.length === 0 ? { status: 401 } : {}),
      };
    const tooLarge = reasons.length > 0 && reasons.every((r) => r.startsWith("too large"));
    if (reasons.length > 0) return { kind: "invalid", reasons, ...(tooLarge ? { status: 413 } : {}) };
    if (parts.unsure) return { kind: "open", reason: parts.unsure };
    return { kind: "valid" };
  }

  private missingKey(op: OperationModel, parts: RequestParts): string | undefined {
    if (parts.auth.kind !== "anonymous") return undefined;
    if (op.needsKey) return "no key for an operation that requires one";
    // createStamp: "With identity_id ... without a key this answers 401".
    const signs =
      parts.query.some(([n]) => n === "identity_id") ||
      (parts.body.kind === "multipart" && parts.body.parts.some((p) => p.name === "identity_id"));
    return op.operationId === "createStamp" && signs ? "identity_id without a key" : undefined;
  }

  private paramProblems(op: OperationModel, parts: RequestParts): string[] {
    const problems: string[] = [];
    for (const param of op.params) {
      const value = this.paramValue(param.in, param.name, parts);
      if (value === null) problems.push(`path parameter ${param.name} is not valid percent-encoding`);
      else if (value === undefined) {
        if (param.required) problems.push(`${param.in} parameter ${param.name} is missing`);
      } else if (!param.check(value))
        problems.push(`${param.in} parameter ${param.name} ${JSON.stringify(value)} breaks its schema`);
    }
    const known = new Set(op.params.filter((p) => p.in === "query").map((p) => p.name));
    const seen = new Set<string>();
    for (const [name] of parts.query) {
      if (!known.has(name)) problems.push(`unknown query parameter ${JSON.stringify(name)}`);
      else if (seen.has(name)) problems.push(`query parameter ${name} repeated`);
      seen.add(name);
    }
    return problems;
  }

  /** The value to check: undefined when absent, null when the raw path segment does not decode. */
  private paramValue(where: string, name: string, parts: RequestParts): string | null | undefined {
    if (where === "query") return parts.query.find(([n]) => n === name)?.[1];
    if (where === "header") return parts.headers[name];
    const raw = parts.rawPathParams?.[name];
    if (raw === undefined) return parts.pathParams[name];
    try {
      return decodeURIComponent(raw);
    } catch {
      return null;
    }
  }

  private bodyProblems(op: OperationModel, parts: RequestParts, bytes: Buffer | undefined): string[] {
    const body = parts.body;
    const noBody =
      body.kind === "none" || (body.kind === "raw" && body.bytes.length === 0 && !body.contentType);
    if (noBody) return op.bodyRequired ? ["no body"] : [];
    if (body.kind === "multipart") return this.formProblems(op, parts, body.parts);
    const contentType = body.kind === "json" ? "application/json" : body.contentType;
    // Bytes without a Content-Type where the body is optional: no form was sent, the request has no body.
    if (!contentType && !op.bodyRequired) return [];
    const jsonBody = op.body.get("application/json");
    if (!contentType || !jsonBody || !isUtf8Json(contentType)) {
      // Raw multipart bodies are broken on purpose (the mutation says how) or open.
      return contentType?.startsWith("multipart/form-data") && op.body.has("multipart/form-data")
        ? []
        : [`content type ${JSON.stringify(contentType ?? null)} is not one the operation takes`];
    }
    if (!bytes || bytes.length === 0) return op.bodyRequired ? ["empty body"] : [];
    const limit = FINGERPRINT_BODIES.has(op.operationId)
      ? this.limits.maxFingerprintJsonBytes
      : this.limits.maxJsonBytes;
    if (bytes.length > limit) return [`too large: a ${bytes.length}-byte JSON body`];
    const value = parseJson(bytes);
    if (value === undefined) return ["the body is not UTF-8 JSON"];
    // I-JSON (RFC 7493 section 2.1), the spec's invalid_json: strings are valid Unicode.
    const lone = findLoneSurrogate(bytes.toString("utf8"));
    if (lone) return [`a string holds the lone surrogate ${lone}`];
    if (depthOf(value) > MAX_JSON_DEPTH) return [`the body nests deeper than ${MAX_JSON_DEPTH} levels`];
    if (!jsonBody.check(value)) return [`the body breaks its schema: ${describeErrors(jsonBody.check)}`];
    return [];
  }

  private formProblems(op: OperationModel, parts: RequestParts, form: Part[]): string[] {
    if (!op.body.has("multipart/form-data")) return ["a form to an operation that takes none"];
    const problems: string[] = [];
    const files = form.filter((p) => p.name === "file");
    if (files.length > 1) problems.push("more than one file part");
    if (files.some((f) => f.filename === undefined)) problems.push("file is a text field");
    const text = form.filter((p) => p.name !== "file");
    if (text.length > MAX_FORM_FIELDS) problems.push(`${text.length} text fields`);
    if (new Set(text.map((p) => p.name)).size < text.length) problems.push("a repeated field");
    if (text.some((p) => Buffer.byteLength(p.value) > MAX_FIELD_BYTES))
      problems.push("too large: a text field over 1 MiB");
    const fields: Record<string, unknown> = Object.fromEntries(text.map((p) => [p.name, String(p.value)]));
    const twins = new Set(op.params.filter((p) => p.in === "query").map((p) => p.name));
    for (const [name, value] of parts.query) if (twins.has(name)) fields[name] = value;
    if (files.length > 0) fields.file = "";
    const check = this.formCheck(op);
    if (!check(fields)) problems.push(`the form breaks its schema: ${describeErrors(check)}`);
    if (op.operationId === "verifyStampJson" && typeof fields.stamp_json === "string") {
      const stampJson = parseObjectText(fields.stamp_json);
      if (stampJson === undefined) problems.push("stamp_json is not a JSON object");
      else if (depthOf(stampJson) > MAX_JSON_DEPTH)
        problems.push(`stamp_json nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    return problems;
  }

  /** The form schema, coercing text the way the spec reads form fields ("5" is an integer). */
  private formCheck(op: OperationModel): ValidateFunction {
    let check = this.forms.get(op.operationId);
    if (!check) {
      check = this.model.compile(op.body.get("multipart/form-data")!.schema, true);
      this.forms.set(op.operationId, check);
    }
    return check;
  }
}

/**
 * The body as the server reads it: decoded when it carries a Content-Encoding. One that does not
 * decode is a broken request already (its mutation says why); its bytes as sent stand in.
 */
function decoded(parts: RequestParts, bytes: Buffer | undefined): Buffer | undefined {
  const coding = parts.body.kind === "raw" ? parts.body.contentEncoding : undefined;
  if (!coding || !bytes) return bytes;
  const decode = { gzip: zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync }[coding];
  try {
    return decode ? decode(bytes) : bytes;
  } catch {
    return bytes;
  }
}

function isUtf8Json(contentType: string): boolean {
  const [type, ...params] = contentType.split(";").map((s) => s.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith("charset="))?.slice(8);
  return type === "application/json" && (charset === undefined || charset === "utf-8");
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

function parseObjectText(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function describeErrors(check: ValidateFunction): string {
  return (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
}
