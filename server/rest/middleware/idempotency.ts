import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import { jcs } from "../../../core/jcs.js";
import type { OperationId } from "../../contract/openapi.js";
import type { Idempotency } from "../../idempotency/idempotency.js";
import type { IdempotencyId, StoredResponse } from "../../idempotency/idempotency-repository.js";
import type { Logger } from "../../logger.js";
import type { Handler } from "../handlers/handler.js";

/** Headers a replay repeats; the others (request id, rate limits) belong to each request. */
const replayedHeaders = ["content-type", "location"];

export interface IdempotentOptions {
  /**
   * What the request asks for; a retry must match it. The default covers method, URL and the JSON
   * body in JCS form (key order and spacing do not matter). An upload supplies its own (e.g. a
   * hash of the file and fields).
   */
  fingerprint?: (req: Request) => string | Promise<string>;
}

/**
 * Wraps a handler of an operation that accepts `Idempotency-Key`. Without the header the handler
 * just runs. With it: the first request runs and its response (status < 500) is stored before it
 * is sent; a retry with the same key and fingerprint gets that response again without running the
 * handler; see Idempotency for the refusals. Keys are scoped to the client (the account, or the
 * rate-limit identity of an anonymous client) and to the operation.
 */
export function idempotent(
  idempotency: Idempotency,
  logger: Logger,
  operation: OperationId,
  handler: Handler,
  options: IdempotentOptions = {},
): Handler {
  return async (req, res, next) => {
    const key = req.get("idempotency-key");
    if (key === undefined) return handler(req, res, next);
    try {
      const id: IdempotencyId = { scope: clientScope(req), key, operation };
      const fingerprint = await (options.fingerprint ?? defaultFingerprint)(req);
      const begun = await idempotency.begin(id, fingerprint);
      if (begun.outcome === "replay") return replay(res, begun.response);
      recordResponse(res, (response) =>
        response.status >= 500 ? idempotency.release(id) : idempotency.complete(id, response),
      ).catch((err) => logger.error({ err, reqId: req.id }, "idempotency record failed"));
      // A request that ends without any response (connection lost, crash) is released too.
      res.on("close", () => {
        if (!res.headersSent) idempotency.release(id).catch(() => {});
      });
      await handler(req, res, next);
    } catch (err) {
      next(err);
    }
  };
}

function clientScope(req: Request): string {
  const { accountId, clientKey } = req.principal;
  return accountId ? `account:${accountId}` : clientKey;
}

function defaultFingerprint(req: Request): string {
  const text = `${req.method} ${req.originalUrl}\n${jcs(req.body ?? null)}`;
  return createHash("sha256").update(text).digest("hex");
}

function replay(res: Response, stored: StoredResponse): void {
  res.status(stored.status);
  for (const [name, value] of Object.entries(stored.headers)) res.setHeader(name, value);
  res.end(stored.body);
}

/**
 * Intercepts the response's body once (res.json ends in res.send), hands it to `keep` and sends
 * it only after `keep` has finished, so a retry arriving right after the answer already finds it.
 */
function recordResponse(res: Response, keep: (response: StoredResponse) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      res.send = send;
      const response: StoredResponse = {
        status: res.statusCode,
        headers: pickHeaders(res),
        body: Buffer.isBuffer(body)
          ? body
          : Buffer.from(typeof body === "string" ? body : JSON.stringify(body ?? "")),
      };
      keep(response)
        .then(resolve, reject)
        .finally(() => send(body));
      return res;
    };
  });
}

function pickHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of replayedHeaders) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}
