import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Principal } from "../auth/principal.js";
import { publicBaseUrl } from "../config.js";
import type { AppContext } from "../context.js";
import { ServiceError } from "../errors.js";
import { bearerChallenge, callerOf, header } from "../http/caller.js";
import { rateLimitHeaders, rateLimitRefusal, refusalHeaders } from "../http/rate-limit-answer.js";
import type { Decision } from "../ratelimit/limiter.js";
import { RateLimitedError } from "../ratelimit/rate-limited.js";

/** Why an upgrade request was answered with an HTTP error instead of a WebSocket. */
export class UpgradeRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
    readonly headers: Record<string, string> = {},
  ) {
    super(STATUS_CODES[status]);
  }
}

const WS_PATH = "/ws";

export interface Admission {
  principal: Principal;
  /** X-RateLimit-* lines for the 101 response, as REST sends them on every response. */
  headers: string[];
}

/**
 * The checks an upgrade request passes before it becomes a connection, in REST's order: the
 * path, the Origin against CORS_ORIGINS (browsers do not apply CORS to WebSockets, so the server
 * must), the caller's key (a bad one refuses with 401, never an anonymous connection), and the
 * caller's rate limit (the upgrade is an HTTP request like any other).
 */
export async function admit(req: IncomingMessage, ctx: AppContext): Promise<Admission> {
  const url = new URL(req.url ?? "/", "http://upgrade.invalid");
  if (url.pathname !== WS_PATH) throw new UpgradeRefusal(404, { detail: "not found" });
  if (!originAllowed(req.headers.origin, ctx.config.CORS_ORIGINS, ownOrigin(ctx.config))) {
    throw new UpgradeRefusal(403, { detail: "origin not allowed" });
  }
  const principal = await authenticate(req, url, ctx);
  // The dashboard's own socket is charged to the page budget. Browsers send no Sec-Fetch-Site on
  // a WebSocket handshake, but always the page's Origin, which no script can change.
  const fromOwnPage = req.headers.origin === ownOrigin(ctx.config);
  const fetchSite = fromOwnPage ? "same-origin" : header(req, "sec-fetch-site");
  const request = { method: "GET", path: WS_PATH, fetchSite };
  const decision = await ctx.rateLimiter?.meter(principal, request, true);
  const headers = decision && ctx.config.RATE_LIMIT_HEADERS ? rateLimitHeaders(decision) : {};
  if (decision && !decision.allowed) throw throttled(decision, ctx);
  return { principal, headers: Object.entries(headers).map(([name, value]) => `${name}: ${value}`) };
}

function throttled(decision: Decision, ctx: AppContext): UpgradeRefusal {
  return new UpgradeRefusal(
    429,
    rateLimitRefusal(decision),
    refusalHeaders(decision, ctx.config.RATE_LIMIT_HEADERS),
  );
}

async function authenticate(req: IncomingMessage, url: URL, ctx: AppContext): Promise<Principal> {
  try {
    // Browsers cannot set headers on a WebSocket upgrade: the query parameter stands in for X-API-Key.
    return await ctx.auth.resolvePrincipal(callerOf(req, url.searchParams.get("api_key") ?? undefined));
  } catch (err) {
    // A key guesser whose address has no budget left (server/ratelimit/failed-auth.ts).
    if (err instanceof RateLimitedError) throw throttled(err.decision, ctx);
    if (!(err instanceof ServiceError) || err.code !== "unauthenticated") throw err;
    throw new UpgradeRefusal(
      401,
      { detail: err.message, ...(err.reason ? { code: err.reason } : {}) },
      { "WWW-Authenticate": bearerChallenge(err.reason) },
    );
  }
}

/**
 * A request without Origin is not from a browser, and CORS_ORIGINS only speaks about browsers. The
 * service's own public origin is always allowed: its dashboard page connects from there.
 */
function originAllowed(origin: string | undefined, allowed: string[], own: string): boolean {
  return origin === undefined || allowed.includes("*") || allowed.includes(origin) || origin === own;
}

function ownOrigin(config: AppContext["config"]): string {
  return new URL(publicBaseUrl(config)).origin;
}

/** Answers the upgrade request with a plain HTTP error and closes the socket. */
export function refuse(socket: Duplex, refusal: UpgradeRefusal): void {
  const body = JSON.stringify(refusal.body);
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
    "Connection: close",
    "Content-Type: application/json; charset=utf-8",
    "X-Content-Type-Options: nosniff",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(refusal.headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once("finish", () => socket.destroy());
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}
