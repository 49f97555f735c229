import express, { type RequestHandler } from "express";
import { DuplicateMemberError, findDuplicateMember } from "../../../core/i-json.js";
import { ServiceError } from "../../errors.js";

/**
 * express.json with I-JSON (RFC 7493) on top: UTF-8 only (section 2.1) and no object naming a
 * member twice (section 2.3). JSON.parse keeps the last of two equal names, other readers the
 * first, so a signed document with a repeated `created_at` would verify here and show another
 * reader a different time. Refused before anything reads the body: 400 `duplicate_member_name`.
 */
export function jsonBody(limit: number): RequestHandler {
  return express.json({ limit, verify: refuseNonIJson });
}

// body-parser's verify hook sees the raw bytes before they are parsed; what it throws is handed to
// the error handler, which answers a ServiceError in the spec's shape.
function refuseNonIJson(_req: unknown, _res: unknown, bytes: Buffer, encoding: string): void {
  if (encoding !== "utf-8") {
    throw new ServiceError(
      "invalid_argument",
      "JSON bodies must be UTF-8 (RFC 8259 section 8.1)",
      "invalid_json",
    );
  }
  const text = bytes.toString("utf8");
  const duplicate = findDuplicateMember(text);
  // The scanner assumes JSON; text that is not JSON is left to the parser's own error.
  if (duplicate && isJson(text)) {
    const { message } = new DuplicateMemberError({ ...duplicate, pointer: `/body${duplicate.pointer}` });
    throw new ServiceError("invalid_argument", message, "duplicate_member_name");
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
