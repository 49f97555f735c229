import type { NextFunction, Request, RequestHandler, Response } from "express";
import { listOperations, type OperationId } from "../contract/openapi.js";
import { ServiceError } from "../errors.js";
import type { Handler, Handlers } from "./handlers/handler.js";
import { type OperationMatch, operationMatcher } from "./operation-matcher.js";

const notImplemented: Handler = () => {
  throw new ServiceError("not_implemented", "not implemented", "not_implemented");
};

/**
 * One handler per operation of specs/openapi.yaml and none besides: the spec decides what exists,
 * handlers only fill it in. An operation without a handler answers 501 `{detail}`. Requests reach
 * handlers as through an express router with one route per operation (operation-matcher.ts):
 * `req.params` from the path, a thrown error or rejected promise passed to `next`, and `next()`
 * going on to the next operation that matches.
 */
export function operationRouter(handlers: Handlers): RequestHandler {
  const handlerOf = new Map<OperationId, Handler>(
    listOperations().map((op) => [op.operationId, handlers[op.operationId] ?? notImplemented]),
  );
  const match = operationMatcher();
  return (req, res, done) => dispatch({ match, handlerOf }, req, res, done, 0);
}

interface Routes {
  match: ReturnType<typeof operationMatcher>;
  handlerOf: Map<OperationId, Handler>;
}

// Plain functions, not closures named per request: the build (keepNames) names each of those with
// Object.defineProperty on every request.
function dispatch(routes: Routes, req: Request, res: Response, done: NextFunction, from: number): void {
  let found: OperationMatch | undefined;
  try {
    found = routes.match(req.method, req.path, from);
  } catch (err) {
    done(err);
    return;
  }
  if (!found) {
    done();
    return;
  }
  req.params = found.params;
  const after = found.next;
  // As express: "route" tries the next operation that matches, "router" leaves the router.
  call(routes.handlerOf.get(found.operation.operationId)!, req, res, (err?: unknown) => {
    if (!err || err === "route") dispatch(routes, req, res, done, after);
    else done(err === "router" ? undefined : err);
  });
}

/** Runs a handler as express does: what it throws or its promise rejects with goes to `next`. */
function call(handler: Handler, req: Request, res: Response, next: NextFunction): void {
  try {
    const result = handler(req, res, next);
    if (result instanceof Promise)
      result.then(undefined, (err: unknown) => next(err || new Error("Rejected promise")));
  } catch (err) {
    next(err);
  }
}
