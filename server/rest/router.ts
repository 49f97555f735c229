import type { NextFunction, Request, RequestHandler, Response } from "express";
import { listOperations, type OperationId } from "../contract/openapi.js";
import { ServiceError } from "../errors.js";
import type { Handler, Handlers } from "./handlers/handler.js";

const notImplemented: Handler = () => {
  throw new ServiceError("not_implemented", "not implemented", "not_implemented");
};

/**
 * One handler per operation of specs/openapi.yaml and none besides: the spec decides what exists,
 * handlers only fill it in. An operation without a handler answers 501 `{detail}`. The request was
 * matched and checked before (middleware/request-validation.ts, with the generated route table), so
 * this is one lookup by `req.operation`: no route is walked and nothing is matched again.
 */
export function operationRouter(handlers: Handlers): RequestHandler {
  const handlerOf = new Map<OperationId, Handler>(
    listOperations().map((op) => [op.operationId, handlers[op.operationId] ?? notImplemented]),
  );
  return (req, res, next) => {
    const { route, params } = req.operation!;
    req.params = params;
    call(handlerOf.get(route.operationId)!, req, res, next);
  };
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
