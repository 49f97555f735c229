import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";

/**
 * Runs middleware in order as one express layer: each step calls `next()` to hand on or
 * `next(err)` to go to `onError`, as under express's router, but by a plain call. The router
 * matched every layer's path, kept the URL's bookkeeping and made closures for each of the ~13
 * steps of every API request: about 5 % of a `GET /stamps/{id}`'s CPU (issue #24).
 */
export function pipeline(steps: readonly RequestHandler[], onError: ErrorRequestHandler): RequestHandler {
  return function runSteps(req: Request, res: Response, done: NextFunction): void {
    let index = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) {
        // Once failed, no step runs again, whatever a late callback does.
        index = steps.length;
        try {
          onError(err, req, res, done);
        } catch (failure) {
          done(failure);
        }
        return;
      }
      const step = steps[index++];
      if (step === undefined) done();
      else runStep(step, req, res, next);
    };
    next();
  };
}

/** Runs a step as express does: what it throws, or its promise rejects with, goes to `next`. */
export function runStep(step: RequestHandler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result: unknown = step(req, res, next);
    if (result instanceof Promise)
      result.then(undefined, (err: unknown) => next(err || new Error("Rejected promise")));
  } catch (err) {
    next(err);
  }
}

/**
 * Runs `step` only for paths under one of `prefixes` (the prefix itself, or it and a slash), matched
 * case-insensitively against the undecoded path, as `app.use(prefixes, step)` mounts it.
 */
export function under(prefixes: readonly string[], step: RequestHandler): RequestHandler {
  const escaped = prefixes.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const mounted = new RegExp(`^(?:${escaped.join("|")})(?:/|$)`, "i");
  return (req, res, next) => (mounted.test(req.path) ? step(req, res, next) : next());
}
