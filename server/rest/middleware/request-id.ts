import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

declare module "express-serve-static-core" {
  interface Request {
    /** Echoed in X-Request-Id and in every log line of the request. */
    id: string;
  }
}

// A caller's id is reused only when it is short and plain, so it cannot inject into logs or headers.
const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get("x-request-id");
  req.id = given && acceptable.test(given) ? given : randomUUID();
  res.setHeader("X-Request-Id", req.id);
  next();
}
