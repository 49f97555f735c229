import type { RequestHandler } from "express";
import { listOperations, type OperationId } from "../contract/openapi.js";
import { ServiceError } from "../errors.js";
import type { Handler, Handlers } from "./handlers/handler.js";
import { runStep } from "./pipeline.js";

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
    runStep(handlerOf.get(route.operationId)!, req, res, next);
  };
}
