import type { FuzzRequest } from "./request.js";
import type { OperationModel, ResponseModel } from "./spec-model.js";
import type { WireResponse } from "./wire.js";

/** Statuses a valid request may get for a reason of the domain, when the operation documents them. */
const DOMAIN_REFUSALS = new Set([403, 404, 409, 422]);
/** Headers whose presence the spec decides per response: sent only where documented. */
const SPEC_HEADERS = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-tier",
  "retry-after",
  "www-authenticate",
  "location",
];

/**
 * Every check one response must pass, as a list of problems (empty: it passed): no 5xx, a status
 * the operation documents, a body of a documented content type that matches its schema, the
 * documented headers and no undocumented spec headers, and the verdict kept (a valid request
 * accepted or refused for a documented domain reason, an invalid one refused with a 4xx).
 */
export function checkResponse(op: OperationModel, req: FuzzRequest, res: WireResponse): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  const documented = responseFor(op, res.status);
  if (!documented) return [...problems, `status ${res.status} is not documented for ${op.operationId}`];
  problems.push(
    ...bodyProblems(documented, res),
    ...headerProblems(documented, res),
    ...verdictProblems(req, res),
  );
  return problems;
}

function responseFor(op: OperationModel, status: number): ResponseModel | undefined {
  return (
    op.responses.get(String(status)) ??
    op.responses.get(`${String(status)[0]}XX`) ??
    op.responses.get("default")
  );
}

function bodyProblems(documented: ResponseModel, res: WireResponse): string[] {
  const contentType = String(res.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (documented.content.size === 0) {
    return res.body.length > 0 ? [`a ${res.status} body, where the spec documents none`] : [];
  }
  if (!documented.content.has(contentType)) {
    return [
      `content type ${JSON.stringify(contentType)} is not documented for ${res.status} (${[...documented.content.keys()].join(", ")})`,
    ];
  }
  const check = documented.content.get(contentType);
  if (!check) return [];
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString("utf8"));
  } catch {
    return [`a ${contentType} body that is not JSON`];
  }
  if (check(body)) return [];
  const errors = (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
  return [`the ${res.status} body does not match its schema: ${errors}`];
}

function headerProblems(documented: ResponseModel, res: WireResponse): string[] {
  const problems: string[] = [];
  const names = new Set(documented.headers.map((h) => h.name.toLowerCase()));
  for (const header of documented.headers) {
    const value = res.headers[header.name.toLowerCase()];
    if (value === undefined) {
      if (header.required) problems.push(`header ${header.name} is missing`);
    } else if (typeof value !== "string" || !header.check(value)) {
      problems.push(`header ${header.name}: ${JSON.stringify(value)} breaks its schema`);
    }
  }
  for (const name of SPEC_HEADERS) {
    if (res.headers[name] !== undefined && !names.has(name))
      problems.push(`header ${name} is not documented for ${res.status}`);
  }
  return problems;
}

function verdictProblems(req: FuzzRequest, res: WireResponse): string[] {
  const { verdict } = req;
  const ok = res.status >= 200 && res.status < 300;
  if (verdict.kind === "valid") {
    if (ok || DOMAIN_REFUSALS.has(res.status)) return [];
    return [`a valid request was refused with ${res.status}: ${res.body.toString("utf8").slice(0, 300)}`];
  }
  if (verdict.kind === "invalid") {
    const reasons = verdict.reasons.join("; ");
    if (res.status < 400 || res.status >= 500)
      return [`an invalid request (${reasons}) was answered ${res.status}`];
    if (verdict.status && res.status !== verdict.status)
      return [`expected ${verdict.status} (${reasons}), got ${res.status}`];
  }
  return [];
}
