import { createHash } from "node:crypto";
import type { components } from "../../gen/openapi/types.js";
import { filePart, type Part, postParts } from "../helpers/multipart.js";
import type { RunningService } from "../helpers/service.js";

export type StampResponse = components["schemas"]["StampResponse"];
export type StampDocument = components["schemas"]["StampDocument"];
export type VerifyResponse = components["schemas"]["VerifyResponse"];

export const sha3 = (text: string) => createHash("sha3-256").update(text).digest("hex");

/** POST /stamps with text fields before the file; `key` is sent as a Bearer key. */
export function postStamp(
  svc: RunningService,
  content: string,
  fields: Record<string, string> = {},
  opts: { query?: string; key?: string } = {},
): Promise<Response> {
  const parts: Part[] = [
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    filePart(content),
  ];
  const headers: Record<string, string> = opts.key ? { authorization: `Bearer ${opts.key}` } : {};
  return postParts(`${svc.baseUrl}/stamps${opts.query ?? ""}`, parts, { headers });
}

/** Creates a stamp and returns its response body, failing the test on any other status than 201. */
export async function createStamp(
  svc: RunningService,
  content: string,
  fields: Record<string, string> = {},
  opts: { query?: string; key?: string } = {},
): Promise<StampResponse> {
  const res = await postStamp(svc, content, fields, opts);
  if (res.status !== 201) throw new Error(`POST /stamps answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** POST /identity with a key; returns the identity id. */
export async function createIdentity(svc: RunningService, key: string): Promise<string> {
  const res = await fetch(`${svc.baseUrl}/identity`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 201) throw new Error(`POST /identity answered ${res.status}: ${await res.text()}`);
  return (await res.json()).identity_id;
}

/** `POST /verify` of a stamp document as a third party holds it. */
export async function verifyOnServer(svc: RunningService, stampJson: unknown): Promise<VerifyResponse> {
  const res = await fetch(`${svc.baseUrl}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ stamp_json: stampJson }),
  });
  return res.json();
}
