import express, { type RequestHandler } from "express";
import {
  DuplicateMemberError,
  findLoneSurrogate,
  findMemberViolation,
  LoneSurrogateError,
  NestingTooDeepError,
} from "../../../core/i-json.js";
import { ServiceError } from "../../errors.js";
import { asDecodingError } from "./body-decoding.js";

/**
 * express.json with I-JSON (RFC 7493) on top: UTF-8 only (section 2.1) and no object naming a
 * member twice (section 2.3). JSON.parse keeps the last of two equal names, other readers the
 * first, so a signed document with a repeated `created_at` would verify here and show another
 * reader a different time. Refused before anything reads the body: 400 `duplicate_member_name`;
 * a lone surrogate escape (section 2.1) or nesting deeper than MAX_JSON_DEPTH is 400 `invalid_json`.
 * A body that does not decode as its Content-Encoding says is a 400 `bad_request`.
 */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, verify: refuseNonIJson });
  return (req, res, next) =>
    parse(req, res, (err?: unknown) =>
      err === undefined ? next() : next(asDecodingError(req.get("content-encoding"), err)),
    );
}

/**
 * A JSON body read by other means (large-bodies.ts), held to what `jsonBody` holds one to: UTF-8,
 * I-JSON, an object or array at the top (express.json's strict mode); empty is `{}` as there.
 */
export function parseJsonBody(bytes: Buffer): unknown {
  // TextDecoder drops a byte order mark, as body-parser's decoding does.
  const text = new TextDecoder("utf-8").decode(bytes);
  refuseNonIJsonText(text);
  if (text.length === 0) return {};
  // JSON whitespace (RFC 8259 section 2) before the first value.
  const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
  try {
    if (first !== "{" && first !== "[") throw new SyntaxError("not an object or array");
    return JSON.parse(text);
  } catch {
    throw new ServiceError("invalid_argument", "malformed JSON body", "invalid_json");
  }
}

/** The error a JSON body in another charset than UTF-8 is refused with. */
export const notUtf8 = () =>
  new ServiceError("invalid_argument", "JSON bodies must be UTF-8 (RFC 8259 section 8.1)", "invalid_json");

// body-parser's verify hook sees the raw bytes before they are parsed; what it throws is handed to
// the error handler, which answers a ServiceError in the spec's shape.
function refuseNonIJson(_req: unknown, _res: unknown, bytes: Buffer, encoding: string): void {
  if (encoding !== "utf-8") throw notUtf8();
  refuseNonIJsonText(bytes.toString("utf8"));
}

function refuseNonIJsonText(text: string): void {
  const violation = findMemberViolation(text);
  // Too deep is refused whether or not the rest parses: the handlers behind would recurse into it.
  if (violation?.kind === "depth") {
    const { message } = new NestingTooDeepError(`/body${violation.pointer}`);
    throw new ServiceError("invalid_argument", message, "invalid_json");
  }
  // The scanner assumes JSON; text that is not JSON is left to the parser's own error.
  if (violation?.kind === "duplicate" && isJson(text)) {
    const { message } = new DuplicateMemberError({ ...violation, pointer: `/body${violation.pointer}` });
    throw new ServiceError("invalid_argument", message, "duplicate_member_name");
  }
  const lone = findLoneSurrogate(text);
  if (lone) throw new ServiceError("invalid_argument", new LoneSurrogateError(lone).message, "invalid_json");
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
