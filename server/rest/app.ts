import express, { type Express, type RequestHandler, type Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { publicBaseUrl } from "../config.js";
import type { AppContext } from "../context.js";
import { loadSpec } from "../contract/openapi.js";
import { pageAssets } from "../pages/assets.js";
import { docsAssets, docsHandlers } from "./handlers/docs.js";
import { FINGERPRINT_JSON_PATHS } from "./handlers/fingerprint-handlers.js";
import type { Handlers } from "./handlers/handler.js";
import { serviceHandlers } from "./handlers/service-handlers.js";
import { authenticate } from "./middleware/authenticate.js";
import { corsFor } from "./middleware/cors.js";
import { errorHandler } from "./middleware/error-handler.js";
import { httpMetrics } from "./middleware/http-metrics.js";
import { jsonBody } from "./middleware/json-body.js";
import { largeJsonBody } from "./middleware/large-bodies.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { requestId } from "./middleware/request-id.js";
import { validateRequest } from "./middleware/request-validation.js";
import { requireKey } from "./middleware/require-key.js";
import { pipeline, under } from "./pipeline.js";
import { operationRouter } from "./router.js";

/**
 * The REST application: request id, CORS, body parsing, validation of every request against
 * specs/openapi.yaml by the validators generated from it (and of every response in tests), the
 * operation router, one error handler.
 */
export function createRestApp(ctx: AppContext, domainHandlers: Handlers = {}): Express {
  const { config } = ctx;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  const steps: RequestHandler[] = [
    httpMetrics(ctx.metrics),
    requestId,
    noSniff,
    corsFor(config.CORS_ORIGINS),
  ];
  // Who is calling, before any body is read: a bad key is refused without further work.
  steps.push(authenticate(ctx));
  // Metered here, so anonymous callers of key-only operations are metered too, and every response
  // from here on (assets, 404s, validation errors) carries the rate-limit headers.
  if (ctx.rateLimiter) {
    const options = { headers: config.RATE_LIMIT_HEADERS, baseUrl: publicBaseUrl(config) };
    steps.push(rateLimit(ctx.rateLimiter, options));
  }
  steps.push(...onlyUnder(ASSET_PATHS, [docsAssets(), pageAssets()]), requireKey());
  // Fingerprint documents list every chunk, so the routes that take them accept larger bodies.
  steps.push(under(FINGERPRINT_JSON_PATHS, largeJsonBody(config)), jsonBody(config.MAX_JSON_BYTES));
  // Uploads stream through receiveUpload (uploads/uploads.ts), which checks their form fields itself.
  steps.push(validateRequest);
  if (config.VALIDATE_RESPONSES ?? config.NODE_ENV === "test") steps.push(...responseValidator());
  steps.push(
    operationRouter({ ...serviceHandlers(publicBaseUrl(config)), ...docsHandlers, ...domainHandlers }),
  );
  // One express layer runs them all (pipeline.ts): express's router is walked once per request.
  app.use(pipeline(steps, errorHandler(ctx.logger)));
  return app;
}

/**
 * express-openapi-validator checks every response against the spec (a development aid, on in
 * tests): an independent second opinion beside the generated request validators. It runs after
 * validateRequest, so it meets only requests the spec knows.
 */
function responseValidator(): RequestHandler[] {
  const validators = OpenApiValidator.middleware({
    // A copy: the validator rewrites the document it is given, and loadSpec's is shared.
    apiSpec: structuredClone(loadSpec()) as never,
    validateRequests: false,
    validateResponses: true,
    validateSecurity: false,
    fileUploader: false,
  });
  // A HEAD answer has no body to check, and the validator knows no HEAD operation (it would 405).
  return validators.map((v) => (req, res, next) => (req.method === "HEAD" ? next() : v(req, res, next)));
}

// Where the reference pages' and the pages' assets live (docs.ts, ../pages/assets.ts), matched
// case-insensitively as their routes are.
const ASSET_PATHS = /^\/(?:docs|redoc|pages)\//i;

/**
 * Runs `routers` only for paths that `paths` matches. An express router that does not answer hands
 * the request on at the next event-loop turn (setImmediate), with closures and objects per route
 * tried: for every API request that was the cost of two routers it never needed.
 */
function onlyUnder(paths: RegExp, routers: Router[]): RequestHandler[] {
  return routers.map(
    (router) => (req, res, next) => (paths.test(req.path) ? router(req, res, next) : next()),
  );
}

/**
 * No response is to be sniffed into another type than the one it declares (a JSON body holding a
 * stamp's text must never be run as HTML or script), whatever answers it.
 */
const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader("X-Content-Type-Options", "nosniff");
  next();
};
