import {
  documentedResponse,
  type OperationModel,
  type ResponseModel,
  responseProblems,
  type SeenResponse,
} from "../../../cli/conformance/spec-model.js";
import type { FuzzRequest } from "./request.js";
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
  const problems = res.status >= 500 ? [`server error ${res.status}`] : [];
  problems.push(...responseProblems(op, seen(res)));
  const documented = documentedResponse(op, res.status);
  if (!documented) return problems;
  problems.push(...undocumentedHeaders(documented, res), ...verdictProblems(req, res));
  return problems;
}

/** The answer as the spec model reads it (Node joins repeated headers with ", ", as fetch does). */
function seen(res: WireResponse): SeenResponse {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of [value ?? []].flat()) headers.append(name, one);
  }
  return { status: res.status, headers, body: res.body.toString("utf8") };
}

function undocumentedHeaders(documented: ResponseModel, res: WireResponse): string[] {
  const names = new Set(documented.headers.map((h) => h.name.toLowerCase()));
  return SPEC_HEADERS.filter((name) => res.headers[name] !== undefined && !names.has(name)).map(
    (name) => `header ${name} is not documented for ${res.status}`,
  );
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
