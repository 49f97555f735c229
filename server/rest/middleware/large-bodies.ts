import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { components } from "../../../gen/openapi/types.js";
import { ClientAddresses } from "../../auth/client-address.js";
import type { Config } from "../../config.js";
import { ServiceError } from "../../errors.js";
import { tierLimits } from "../../ratelimit/tiers.js";
import { contentEncoding, decoderFor, undecodable } from "./body-decoding.js";
import { notUtf8, parseJsonBody } from "./json-body.js";
import {
  LARGE_BODY_RETRY_AFTER_SECONDS,
  LargeBodyBudget,
  type LargeBodyShare,
  TooManyLargeBodies,
} from "./large-body-budget.js";

type RateLimitError = components["schemas"]["RateLimitError"];

export type LargeBodySettings = Pick<
  Config,
  | "MAX_JSON_BYTES"
  | "MAX_FINGERPRINT_JSON_BYTES"
  | "MAX_LARGE_BODIES_PER_CLIENT"
  | "MAX_LARGE_BODY_BYTES_TOTAL"
  | "TRUSTED_PROXIES"
  | "IPV6_PREFIX_LENGTH"
>;

/**
 * Reads the JSON bodies of the routes that take large ones (up to MAX_FINGERPRINT_JSON_BYTES),
 * counting their bytes as they are decoded. A parsed fingerprint takes about four times its JSON
 * in memory (docs/fingerprint.md part 8), so:
 * - one client address reads at most MAX_LARGE_BODIES_PER_CLIENT bodies above MAX_JSON_BYTES at
 *   once; one more is a 429 (issue #21 finding 5: three 54 MB bodies took 282 to 619 MB). Counted
 *   per address, as the connection cap and the anonymous rate limit count;
 * - all clients together hold at most MAX_LARGE_BODY_BYTES_TOTAL decoded bytes of such bodies;
 *   beyond it a 503 `server_busy` (six addresses' plain bodies reached 734 MB, issue #35 item 3).
 * Decoded, not wire bytes: eight 204 KB gzip bodies from one client inflated at once to
 * 1,122 MB. A body whose length says it is large is refused before it is read; one that grows
 * past a bound (gzip, chunked) as soon as it does, the rest of it discarded unread.
 */
export function largeJsonBody(settings: LargeBodySettings): RequestHandler {
  const addresses = new ClientAddresses(settings.TRUSTED_PROXIES, settings.IPV6_PREFIX_LENGTH);
  const budget = new LargeBodyBudget(
    settings.MAX_LARGE_BODIES_PER_CLIENT,
    settings.MAX_LARGE_BODY_BYTES_TOTAL,
  );
  return (req: Request, res: Response, next: NextFunction) => {
    // Anything else is left to express.json, which passes over what it does not parse either.
    if (!req.is("application/json")) return next();
    const client = addresses.clientKey({
      forwardedFor: req.get("x-forwarded-for"),
      realIp: req.get("x-real-ip"),
      peerAddress: req.socket.remoteAddress,
    });
    const share = budget.share(client, settings.MAX_JSON_BYTES);
    // `close` comes once the response is sent or the client has gone, whichever is first.
    res.once("close", () => share.release());
    readDecoded(req, share, settings.MAX_FINGERPRINT_JSON_BYTES)
      .then(
        (bytes) => {
          req.body = parseJsonBody(bytes);
          next();
        },
        (err: unknown) => (err instanceof TooManyLargeBodies ? refuse(req, res, err.allowed) : next(err)),
      )
      .catch(next);
  };
}

/** The body, decoded, counted into `share` as it arrives; rejects as soon as it may not grow. */
function readDecoded(req: Request, share: LargeBodyShare, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const encoding = contentEncoding(req.get("content-encoding"));
    let decoder: ReturnType<typeof decoderFor>;
    try {
      if (!isUtf8(req)) throw notUtf8();
      if (encoding === "identity") {
        const length = Number(req.get("content-length") ?? Number.NaN);
        if (length > limit) throw tooLarge();
        if (length > 0) share.expect(length);
      }
      decoder = decoderFor(encoding);
    } catch (err) {
      reject(err);
      return;
    }
    const source = decoder ? req.pipe(decoder) : req;
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (err: unknown) => {
      source.off("data", onData);
      source.off("end", onEnd);
      if (decoder) {
        req.unpipe(decoder);
        decoder.destroy();
      }
      // The rest of the body is read and dropped, so the answer can reach the client.
      req.resume();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return stop(tooLarge());
      try {
        share.add(chunk.length);
      } catch (err) {
        return stop(err);
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    source.on("data", onData);
    source.once("end", onEnd);
    if (decoder) decoder.once("error", (err) => stop(undecodable(encoding, err)));
    req.once("error", () => stop(new ServiceError("invalid_argument", "request aborted", "bad_request")));
  });
}

function isUtf8(req: Request): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get("content-type") ?? "")?.[1];
  return charset === undefined || charset.toLowerCase() === "utf-8";
}

const tooLarge = () => new ServiceError("payload_too_large", "request body too large", "payload_too_large");

function refuse(req: Request, res: Response, allowed: number): void {
  const { tier } = req.principal;
  const body: RateLimitError = {
    error: "rate_limit_exceeded",
    message: `Too many large JSON bodies at once from this client: at most ${allowed} above MAX_JSON_BYTES (decoded) read at a time. Retry after ${LARGE_BODY_RETRY_AFTER_SECONDS} seconds.`,
    retry_after: LARGE_BODY_RETRY_AFTER_SECONDS,
    tier,
    limit: tierLimits[tier].perMinute,
  };
  // The body is never parsed: node discards it as it arrives, holding none of it.
  res.set("Retry-After", String(LARGE_BODY_RETRY_AFTER_SECONDS)).status(429).json(body);
}
