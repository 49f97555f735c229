import type { OperationId } from "../../../server/contract/openapi.js";
import type { Part } from "../../helpers/multipart.js";

/** How the request presents itself. */
export type Auth =
  | { kind: "owner" | "other"; key: string; header: "bearer" | "x-api-key" }
  | { kind: "anonymous"; clientIp: string }
  /** A key that must be refused: malformed or unknown (from a fresh address, whose bucket refusals do not drain). */
  | { kind: "bad"; header: "bearer" | "x-api-key"; value: string; clientIp: string };

export type Body =
  | { kind: "none" }
  | { kind: "json"; value: unknown }
  /** Parts in the order they are sent; a part with a `filename` is a file part. */
  | { kind: "multipart"; parts: Part[] }
  /** Bytes as they are, for bodies no serializer would write (truncated, not UTF-8, wrong type). */
  | { kind: "raw"; bytes: Buffer; contentType?: string; contentEncoding?: string };

/** A request before it is written: the parts a mutation edits and the classifier reads. */
export interface RequestParts {
  pathParams: Record<string, string>;
  /** Path parameters written as they are, already percent-encoded (or wrongly so). */
  rawPathParams?: Record<string, string>;
  /** Query parameters in order; a name may repeat. */
  query: [string, string][];
  /** Header parameters of the operation (e.g. Idempotency-Key). */
  headers: Record<string, string>;
  auth: Auth;
  body: Body;
  /** Set by a mutation that breaks the request in a way the schemas cannot see (e.g. a field after the file). */
  broken?: string;
  /** Set by a mutation whose outcome the spec leaves open: only the generic checks apply. */
  unsure?: string;
}

/** What the spec says the server must do with a request. */
export type Verdict =
  /** Valid by the spec: accepted (2xx) or refused only for a documented domain reason (404, 409, ...). */
  | { kind: "valid" }
  /** Invalid: refused with a documented 4xx (`status` when the spec fixes one). */
  | { kind: "invalid"; reasons: string[]; status?: number }
  /** The spec leaves the outcome open: only the checks every response must pass. */
  | { kind: "open"; reason: string };

/** One fuzzed request, fully written out, with the operation it targets and the spec's verdict. */
export interface FuzzRequest {
  index: number;
  operationId: OperationId;
  method: string;
  /** Path and query, percent-encoded as sent. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The mutation applied to a valid request ("valid" when none). */
  mutation: string;
  verdict: Verdict;
}

/** The request as a reader can replay it: method, URL, headers and the body (text when it is printable UTF-8). */
export function describeRequest(req: FuzzRequest): string {
  const lines = [`${req.method.toUpperCase()} ${req.url}`];
  for (const [name, value] of Object.entries(req.headers)) lines.push(`${name}: ${value}`);
  if (req.body && req.body.length > 0) lines.push("", bodyText(req.body));
  return lines.join("\n");
}

const PRINTABLE_LIMIT = 4000;

/** C0 controls other than tab, line feed, vertical tab, form feed and carriage return. */
function isControl(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 0x20 && (code < 0x09 || code > 0x0d);
}

function bodyText(body: Buffer): string {
  const text = body.toString("utf8");
  const printable = Buffer.from(text, "utf8").equals(body) && ![...text].some(isControl);
  if (printable && text.length <= PRINTABLE_LIMIT) return text;
  if (printable) return `${text.slice(0, PRINTABLE_LIMIT)}… (${body.length} bytes in all)`;
  const shown = body.subarray(0, PRINTABLE_LIMIT);
  return `(${body.length} bytes, base64${shown.length < body.length ? ", first 4000" : ""}) ${shown.toString("base64")}`;
}
