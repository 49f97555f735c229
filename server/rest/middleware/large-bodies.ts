import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { components } from "../../../gen/openapi/types.js";
import { ClientAddresses } from "../../auth/client-address.js";
import type { Config } from "../../config.js";
import { tierLimits } from "../../ratelimit/tiers.js";

type RateLimitError = components["schemas"]["RateLimitError"];

export type LargeBodySettings = Pick<
  Config,
  "MAX_JSON_BYTES" | "MAX_LARGE_BODIES_PER_CLIENT" | "TRUSTED_PROXIES" | "IPV6_PREFIX_LENGTH"
>;

/** Seconds a refused client is told to wait: a large body takes about that long to parse. */
const RETRY_AFTER_SECONDS = 1;

/**
 * At most `MAX_LARGE_BODIES_PER_CLIENT` JSON bodies above `MAX_JSON_BYTES` (or of unknown length)
 * read at once per client address; one more is answered 429 before its body is read. A parsed
 * fingerprint takes about four times its JSON in memory (some 200 MiB for a 50 MB body,
 * docs/fingerprint.md part 8), so three in parallel from one address took the process from 282 to
 * 619 MB (issue #21 finding 5). Counted per address, as the connection cap and the anonymous rate
 * limit count, so several keys from one address share the allowance.
 */
export function largeBodyCap(settings: LargeBodySettings): RequestHandler {
  const addresses = new ClientAddresses(settings.TRUSTED_PROXIES, settings.IPV6_PREFIX_LENGTH);
  const reading = new Map<string, number>();
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isLarge(req, settings.MAX_JSON_BYTES)) return next();
    const client = addresses.clientKey({
      forwardedFor: req.get("x-forwarded-for"),
      realIp: req.get("x-real-ip"),
      peerAddress: req.socket.remoteAddress,
    });
    const count = reading.get(client) ?? 0;
    if (count >= settings.MAX_LARGE_BODIES_PER_CLIENT) {
      refuse(req, res, settings.MAX_LARGE_BODIES_PER_CLIENT);
      return;
    }
    reading.set(client, count + 1);
    // `close` comes once the response is sent or the client has gone, whichever is first.
    res.once("close", () => {
      const left = reading.get(client)! - 1;
      if (left === 0) reading.delete(client);
      else reading.set(client, left);
    });
    next();
  };
}

function isLarge(req: Request, maxJsonBytes: number): boolean {
  if (!req.is("application/json")) return false;
  const length = req.get("content-length");
  // Chunked: its size is known only once read, so it counts as large.
  return length === undefined || Number(length) > maxJsonBytes;
}

function refuse(req: Request, res: Response, allowed: number): void {
  const { tier } = req.principal;
  const body: RateLimitError = {
    error: "rate_limit_exceeded",
    message: `Too many large JSON bodies at once from this client: at most ${allowed} above MAX_JSON_BYTES read at a time. Retry after ${RETRY_AFTER_SECONDS} seconds.`,
    retry_after: RETRY_AFTER_SECONDS,
    tier,
    limit: tierLimits[tier].perMinute,
  };
  // The body is never parsed: node discards it as it arrives, holding none of it.
  res.set("Retry-After", String(RETRY_AFTER_SECONDS)).status(429).json(body);
}
