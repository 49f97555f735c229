import { type Agent, request } from "node:http";
import type { OperationModel } from "../../../cli/conformance/spec-model.js";
import { multipart } from "../../helpers/multipart.js";
import type { Auth, RequestParts } from "./request.js";

/** The request as bytes: path and query percent-encoded, headers, body. */
export interface Wire {
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Writes the parts out as an HTTP request (node:http, so bodies and headers go out exactly as built). */
export function toWire(op: OperationModel, parts: RequestParts): Wire {
  const path = op.path.replace(
    /\{([^}]+)\}/g,
    (_, name: string) => parts.rawPathParams?.[name] ?? encode(parts.pathParams[name] ?? ""),
  );
  const query = parts.query.map(([n, v]) => `${encode(n)}=${encode(v)}`).join("&");
  const headers: Record<string, string> = { ...parts.headers, ...authHeaders(parts.auth) };
  const { body, contentType } = bodyBytes(parts);
  if (contentType !== undefined) headers["content-type"] = contentType;
  if (parts.body.kind === "raw" && parts.body.contentEncoding)
    headers["content-encoding"] = parts.body.contentEncoding;
  return { url: query ? `${path}?${query}` : path, headers, body };
}

function authHeaders(auth: Auth): Record<string, string> {
  if (auth.kind === "anonymous") return { "x-forwarded-for": auth.clientIp };
  const key = auth.header === "bearer" ? "authorization" : "x-api-key";
  if (auth.kind === "bad")
    return {
      [key]: key === "authorization" ? `Bearer ${auth.value}` : auth.value,
      "x-forwarded-for": auth.clientIp,
    };
  return { [key]: key === "authorization" ? `Bearer ${auth.key}` : auth.key };
}

function bodyBytes(parts: RequestParts): { body?: Buffer; contentType?: string } {
  const body = parts.body;
  if (body.kind === "none") return {};
  if (body.kind === "raw") return { body: body.bytes, contentType: body.contentType };
  if (body.kind === "multipart") return multipart(body.parts);
  return { body: Buffer.from(JSON.stringify(body.value)), contentType: "application/json" };
}

/**
 * Percent-encodes UTF-8 bytes outside the unreserved set. Lone surrogates become U+FFFD first, as
 * any client must: a URL carries bytes, and they have no UTF-8 form.
 */
function encode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Most of a response body the fuzzer reads; larger bodies are cut (and the check says so). */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Sends one request and reads the whole answer. */
export function send(baseUrl: string, agent: Agent, method: string, wire: Wire): Promise<WireResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: method.toUpperCase(),
        path: wire.url,
        headers: { ...wire.headers, ...(wire.body ? { "content-length": String(wire.body.length) } : {}) },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(wire.body);
  });
}
