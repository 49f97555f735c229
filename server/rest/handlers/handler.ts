import type { NextFunction, Request, Response } from "express";
import type { operations } from "../../../gen/openapi/types.js";
import type { OperationId } from "../../contract/openapi.js";

export type Handler = (req: Request, res: Response, next: NextFunction) => void | Promise<void>;

/** Handlers by operationId; an operation missing here answers 501 through the same router. */
export type Handlers = Partial<Record<OperationId, Handler>>;

type Responses<Op extends OperationId> = operations[Op]["responses"];

/** The JSON body the spec declares for an operation's status code. */
export type JsonBody<Op extends OperationId, S extends keyof Responses<Op>> = Responses<Op>[S] extends {
  content: { "application/json": infer B };
}
  ? B
  : never;

/** Sends a JSON body typed by the spec, so a handler cannot drift from the contract. */
export function sendJson<Op extends OperationId, S extends keyof Responses<Op> & number>(
  res: Response,
  _op: Op,
  status: S,
  body: JsonBody<Op, S>,
): void {
  res.status(status).json(body);
}
