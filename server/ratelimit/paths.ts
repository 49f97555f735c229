/**
 * Request cost by path prefix (the weight table of specs/openapi.yaml info, Rate limiting): the
 * weights of `/fingerprints` and `/identities` apply to the singular paths stampd serves.
 */
export const weights: Readonly<Record<string, number>> = {
  "/stamps": 2.0,
  "/fingerprint": 1.5,
  "/verify": 1.0,
  "/identity": 1.0,
  "/vault": 1.0,
  "/explorer": 0.5,
  "/presets": 0.1,
  // Signed or immutable data that monitors and verifiers fetch often: the log's checkpoints and
  // tiles, and the TSA's certificate, cost what a look at /health would (issue #36).
  "/log": 0.1,
  "/log/checkpoint": 0.1,
  "/log/tiles": 0.1,
  "/tsa/ca.pem": 0.1,
  "/health": 0.1,
};

export const DEFAULT_WEIGHT = 1.0;

/**
 * Paths under a cheap prefix that cost the default all the same: `GET /log` is a checkpoint read,
 * but the proofs below it are computed per request.
 */
const FULL_PRICE = ["/log/inclusion", "/log/consistency"];

/**
 * Never limited nor charged (specs/openapi.yaml info, Rate limiting), with everything below them (assets); their responses carry
 * the caller's figures all the same. The pages' static assets are exempt too: a page load is
 * charged once, for the page.
 */
export const exemptPaths: readonly string[] = [
  "/health",
  "/ready",
  "/metrics",
  "/docs",
  "/redoc",
  "/openapi.json",
  "/pages/assets",
];

/** How a request is metered: not at all, against the page budget, or against the API budget. */
export type RequestClass = "exempt" | "page" | "api";

/**
 * What the limiter needs to know of a request to classify and price it. A gRPC call or a WebSocket
 * message names the REST path it stands for and has no method: it is always an API request.
 */
export interface MeteredRequest {
  /** An HTTP request's method; absent for calls of the other transports. */
  method?: string;
  path: string;
  /** The `Sec-Fetch-Site` header, which browsers send (`same-origin` from this service's pages). */
  fetchSite?: string;
  /** Calls charged at once, all or nothing, each at the path's full weight (a gRPC batch); 1 if absent. */
  count?: number;
}

// The pages people load and reload: the landing page (a program's root object is charged there
// too: it is the same path), the verification page, the dashboard with its counts and the explorer.
const PAGES = [/^\/$/, /^\/verify\/[^/]+$/, /^\/dashboard$/, /^\/dashboard\/stats$/, /^\/explorer$/];
// What the dashboard and the explorer also fetch in the background from the browser: the log
// panel, the explorer's list and statistics, and their WebSocket. Only with a browser's
// Sec-Fetch-Site: same-origin (the WebSocket upgrade stands in its own Origin for it, ws/upgrade.ts),
// since they are API paths too; a client that forges the header buys the page budget, which is
// bounded like any other.
const PAGE_DATA = ["/log", "/ws", "/explorer/api/vaults", "/explorer/api/stats"];

/** The class of a request (docs/design.md "Rate limiting"). */
export function requestClass({ method, path, fetchSite }: MeteredRequest): RequestClass {
  const p = normalise(path);
  if (underAny(p, exemptPaths)) return "exempt";
  if (method !== "GET" && method !== "HEAD") return "api";
  if (PAGES.some((page) => page.test(p))) return "page";
  return fetchSite === "same-origin" && PAGE_DATA.includes(p) ? "page" : "api";
}

const byLength = Object.keys(weights).sort((a, b) => b.length - a.length);

/** The cost of a request to `path`: the longest listed prefix on whole segments, else 1.0. */
export function weightFor(path: string): number {
  const p = normalise(path);
  if (underAny(p, FULL_PRICE)) return DEFAULT_WEIGHT;
  for (const prefix of byLength) if (under(p, prefix)) return weights[prefix]!;
  return DEFAULT_WEIGHT;
}

// Express routes case-insensitively, so /STAMPS reaches the stamps handler and must cost the same.
function normalise(path: string): string {
  return path.toLowerCase();
}

// Loops and character tests rather than closures and `${prefix}/` strings: this runs on every
// request, and each allocation showed in the limiter's cost (bench/ratelimit.bench.ts).
function under(path: string, prefix: string): boolean {
  return (
    path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === SLASH)
  );
}

function underAny(path: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (under(path, prefix)) return true;
  return false;
}

const SLASH = 0x2f;
