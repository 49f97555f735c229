import type { Algorithm, AlgorithmName, Outcome } from "./algorithm.js";
import { algorithms } from "./algorithms.js";
import type { Lane } from "./tiers.js";

/** A client's state as the Redis script last returned it (on a charge or a look), and when. */
interface Recent {
  /** The state in the script's text form (token-bucket.lua, sliding-window.lua). */
  text: string;
  /** Decoded on the first look that needs it: most remembered states are never looked at. */
  state?: unknown;
  /** The script's clock when it ran (Redis's TIME, or the test clock). */
  scriptMs: number;
  /** This process's clock when the reply came back. */
  readMs: number;
}

/** The scripts' state text as the TypeScript steps hold it (token-bucket.ts, sliding-window.ts). */
const decoders: Record<AlgorithmName, (text: string) => unknown> = {
  // "atMs tokens1 tokens2 ..."
  token_bucket: (text) => text.split(" ").map(Number),
  // "slot count slot count ..." per lane, lanes joined by ';'
  sliding_window: (text) => text.split(";").map((lane) => (lane ? lane.split(" ").map(Number) : [])),
};

export interface RecentStatesOptions {
  algorithm: AlgorithmName;
  /** How long a remembered state may answer looks (`RATE_LIMIT_PEEK_FRESHNESS_MS`, docs/configuration.md). */
  freshnessMs: number;
  /** At most this many clients remembered (`RATE_LIMIT_MAX_TRACKED_CLIENTS`); the oldest go first. */
  maxClients: number;
}

/**
 * What this instance last heard from Redis about each client, so that a look without a charge (the
 * headers of an exempt request) needs no round trip of its own: the remembered state is refilled
 * to now by the algorithm's own step, as the script would. Another instance's charges since are
 * not seen, so such headers may be behind by up to the freshness bound; charges always go to Redis.
 * The map is in order of reading, so the entries past freshness (or past `maxClients`) are at the
 * front and are dropped there without scanning the rest.
 */
export class RecentStates {
  private readonly clients = new Map<string, Recent>();
  private readonly algorithm: Algorithm;
  private readonly decode: (text: string) => unknown;

  constructor(private readonly options: RecentStatesOptions) {
    this.algorithm = algorithms[options.algorithm];
    this.decode = decoders[options.algorithm];
  }

  remember(clientKey: string, text: string, scriptMs: number, readMs: number): void {
    this.clients.delete(clientKey);
    this.clients.set(clientKey, { text, scriptMs, readMs });
    for (const [key, recent] of this.clients) {
      if (this.clients.size <= this.options.maxClients && this.fresh(recent, readMs)) break;
      this.clients.delete(key);
    }
  }

  /** What a look at `nowMs` (this process's clock) would answer; undefined when nothing fresh is known. */
  peek(clientKey: string, lanes: readonly Lane[], nowMs: number): Outcome | undefined {
    const recent = this.clients.get(clientKey);
    if (!recent || !this.fresh(recent, nowMs)) return undefined;
    recent.state ??= this.decode(recent.text);
    const scriptNowMs = recent.scriptMs + (nowMs - recent.readMs);
    return this.algorithm.step(recent.state, lanes, 0, scriptNowMs).outcome;
  }

  clear(): void {
    this.clients.clear();
  }

  /** Read less than the freshness bound ago, and not after `nowMs` (a test clock set back). */
  private fresh(recent: Recent, nowMs: number): boolean {
    const ageMs = nowMs - recent.readMs;
    return ageMs >= 0 && ageMs < this.options.freshnessMs;
  }
}
