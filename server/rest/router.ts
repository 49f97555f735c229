import express, { type Router } from "express";
import { ServiceError } from "../errors.js";
import type { Handler, Handlers } from "./handler.js";
import { listOperations } from "./spec.js";

const notImplemented: Handler = () => {
  throw new ServiceError("not_implemented", "not implemented", "not_implemented");
};

/**
 * One route per operation of specs/openapi.yaml and none besides: the spec decides what exists,
 * handlers only fill it in. An operation without a handler answers 501 `{detail}`.
 */
export function operationRouter(handlers: Handlers): Router {
  const router = express.Router();
  for (const op of listOperations()) {
    router[op.method](op.expressPath, handlers[op.operationId] ?? notImplemented);
  }
  return router;
}
