import { NotRun } from "./check.js";
import { responseProblems, type SpecModel } from "./spec-model.js";

/** One request the kit sent and the answer it got, judged against the spec. */
export interface Exchange {
  /** `POST /vault/create (owner key) {"heartbeat_deadline":3600,…}` */
  request: string;
  status: number;
  /** The answer's first bytes, for the report. */
  excerpt: string;
  operationId?: string;
  /** What the spec says is wrong with the answer (empty: nothing). */
  problems: string[];
  /** The answer's X-RateLimit-* headers by lower-case name, those present. */
  rateLimit: Record<string, string>;
}

export interface TrafficOptions {
  model: SpecModel;
  /** The base URL's own path (a deployment under /api), removed before matching operations. */
  basePath: string;
  /** Requests per second at most, over the whole run. */
  rate: number;
  /** Without it, requests to operations that change state are refused before they are sent. */
  write: boolean;
  /** Names for the keys, so that reports say "owner key" and never print a key. */
  keyNames: Map<string, string>;
}

/**
 * Operations answered by a POST that change nothing on the server: computations over what the
 * request carries. Everything else that is not GET or HEAD needs `--write`.
 */
const COMPUTING_POSTS = new Set([
  "hashFile",
  "createFingerprint",
  "compareFingerprints",
  "createFingerprintProof",
  "verifyStamp",
  "verifyStampJson",
]);
/** 429s a request may meet before the kit gives up waiting. */
const MAX_THROTTLED = 3;
/** The longest `Retry-After` the kit waits out. */
const MAX_WAIT_SECONDS = 60;
const EXCERPT_CHARS = 600;

/**
 * The kit's only way to the REST API (the SDK and raw requests both use `fetch` below): it keeps
 * the request rate bounded, waits out `Retry-After` on 429, refuses requests that would write
 * without `--write`, and records every answer with what the spec finds wrong in it.
 */
export class Traffic {
  readonly fetch: typeof globalThis.fetch = (input, init) => this.send(new Request(input, init));
  /** Every exchange of the run, for the checks that look at all of them. */
  readonly history: Exchange[] = [];
  private exchanges: Exchange[] = [];
  private nextSlot = 0;

  constructor(private readonly options: TrafficOptions) {}

  /** Starts a new check's record. */
  begin(): void {
    this.exchanges = [];
  }

  /** What was sent since `begin()`. */
  seen(): readonly Exchange[] {
    return this.exchanges;
  }

  private async send(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname.slice(this.options.basePath.length) || "/";
    const op = this.options.model.match(request.method, path);
    this.guard(request.method, path, op?.operationId);
    // Buffered once, so that a throttled request can be sent again as it was.
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const describe = this.describe(request, body);
    for (let attempt = 0; ; attempt++) {
      await this.pace();
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body,
        redirect: "manual",
        signal: request.signal,
      });
      const text = await response.clone().text();
      const problems = op
        ? responseProblems(op, { status: response.status, headers: response.headers, body: text })
        : [`${request.method} ${path} is not an operation of the spec`];
      const exchange: Exchange = {
        request: describe,
        status: response.status,
        excerpt: text.slice(0, EXCERPT_CHARS),
        operationId: op?.operationId,
        problems,
        rateLimit: rateLimitHeaders(response.headers),
      };
      this.exchanges.push(exchange);
      this.history.push(exchange);
      const wait = Number(response.headers.get("retry-after"));
      if (response.status !== 429 || attempt >= MAX_THROTTLED || !(wait > 0)) return response;
      await sleep(Math.min(wait, MAX_WAIT_SECONDS) * 1000);
    }
  }

  private guard(method: string, path: string, operationId: string | undefined): void {
    if (this.options.write || method === "GET" || method === "HEAD") return;
    if (operationId && COMPUTING_POSTS.has(operationId)) return;
    throw new NotRun(`${method} ${path} changes state: needs --write`);
  }

  /** Spaces requests 1/rate seconds apart. */
  private async pace(): Promise<void> {
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + 1000 / this.options.rate;
    if (slot > now) await sleep(slot - now);
  }

  private describe(request: Request, body: Buffer | undefined): string {
    const url = new URL(request.url);
    const auth =
      request.headers.get("authorization")?.replace(/^Bearer /, "") ?? request.headers.get("x-api-key");
    const who = auth === null ? "no key" : (this.options.keyNames.get(auth) ?? "another key");
    const type = request.headers.get("content-type") ?? "";
    const shown = !body
      ? ""
      : type.includes("json")
        ? ` ${body.toString("utf8").slice(0, 300)}`
        : ` <${type.split(";")[0]}, ${body.length} bytes>`;
    return `${request.method} ${url.pathname}${url.search} (${who})${shown}`;
  }
}

function rateLimitHeaders(headers: Headers): Record<string, string> {
  const found: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith("x-ratelimit-")) found[name] = value;
  });
  return found;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
