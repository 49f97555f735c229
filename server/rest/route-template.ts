import { listOperations } from "../contract/openapi.js";

/** The label of a request that matches no path of the spec (unknown paths, static assets). */
export const UNMATCHED_ROUTE = "other";

interface Template {
  path: string;
  pattern: RegExp;
}

/**
 * Maps a request path to the spec's path template (`/stamps/stp_01J…` → `/stamps/{stamp_id}`), so
 * metrics never carry ids: their labels stay a fixed, small set. Matches as express routes do
 * (case-insensitively, with an optional trailing slash), literal segments before parameters.
 */
export function routeTemplates(): (path: string) => string {
  const byFirstSegment = new Map<string, Template[]>();
  const seen = new Set<string>();
  for (const { path } of listOperations()) {
    if (seen.has(path)) continue;
    seen.add(path);
    const key = firstSegment(path);
    const list = byFirstSegment.get(key) ?? [];
    list.push({ path, pattern: patternOf(path) });
    byFirstSegment.set(key, list);
  }
  return (path) => {
    const candidates = byFirstSegment.get(firstSegment(path).toLowerCase()) ?? [];
    return candidates.find((t) => t.pattern.test(path))?.path ?? UNMATCHED_ROUTE;
  };
}

function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return end === -1 ? path : path.slice(0, end);
}

/** A spec path as express matches it; each parameter is a capture group, in order. */
export function patternOf(path: string): RegExp {
  const source = path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith("{") ? "([^/]+)" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}/?$`, "i");
}
