import { parse as parseUrl } from "node:url";
import type { ErrorObject } from "ajv";
import type { NextFunction, Request, Response } from "express";
import { type OperationRequest, requestValidators } from "../../../gen/rest/request-validators.js";
import type { Route } from "../../../gen/rest/routes.js";
import { normalizeBooleans } from "../form-boolean.js";
import { matchRequest, type RequestMatch } from "../operation-matcher.js";

declare module "express-serve-static-core" {
  interface Request {
    /**
     * The operation of specs/openapi.yaml the request was matched to and its decoded path
     * parameters, set once the request is valid (express resets `req.params` at every layer).
     */
    operation?: CheckedRequest;
  }
}

/** A refusal as express-openapi-validator throws it; error-handler.ts answers it in the spec's shape. */
export interface RequestRefusal {
  status: 400 | 404 | 405 | 415;
  message: string;
  errors: { path: string; message: string }[];
  /** With 405: the methods the path takes, for the `Allow` header (RFC 9110 section 15.5.6). */
  allow?: string[];
}

/** What the check reads of a request (express's `req`, or a test's stand-in). */
export interface RequestParts {
  method: string;
  /** The path without the query, not decoded. */
  path: string;
  /** The URL as received, for the raw query. */
  originalUrl: string;
  /** The parsed query; coerced and defaulted in place. */
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, if any; defaulted in place. */
  body: unknown;
}

export interface CheckedRequest {
  route: Route;
  params: Record<string, string>;
}

/**
 * The REST request check: the request's operation and decoded path parameters in `req.operation`,
 * its query coerced and defaulted and its JSON body defaulted, or the refusal to the error handler.
 */
export function validateRequest(req: Request, _res: Response, next: NextFunction): void {
  // express 5's req.query is a getter that parses the URL again on every read: pinned as a plain
  // value (as express-openapi-validator did), so the coercion and defaults made in place stay.
  Object.defineProperty(req, "query", { value: req.query, writable: true });
  try {
    req.operation = checkRequest(req, req.match);
  } catch (err) {
    next(err);
    return;
  }
  next();
}

// Reserved characters a query value must percent-encode unless its parameter allows them (RFC 3986).
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/**
 * Matches a request to its operation with the generated route table (gen/rest/routes.ts; the
 * walk require-key.ts made, `match`, when there was one) and
 * validates its parameters and JSON body with the generated validators, as
 * express-openapi-validator 5.6.2 does, in its order and with its errors: unknown path 404, known
 * path and other method 405, Content-Type the operation does not take 415, a query value with
 * reserved characters, an unknown or empty query parameter, then the schemas (first error of the
 * parameters, first of the body). Returns the operation and its decoded path parameters, or throws
 * a RequestRefusal. test/rest/generated-validators.test.ts holds both to the same answers.
 */
export function checkRequest(req: RequestParts, match?: RequestMatch): CheckedRequest {
  const found = (match ?? matchRequest(req.method, req.path)).path;
  if (!found) throw refusal(404, req.path, "not found");
  // HEAD is GET without the body, wherever GET is served (RFC 9110 section 9.3.2).
  const method = req.method === "HEAD" ? "get" : req.method.toLowerCase();
  const route = found.routes.find((r) => r.method === method);
  if (!route) {
    throw { ...refusal(405, req.path, `${req.method} method not allowed`), allow: allowed(found.routes) };
  }
  const params = decodeParams(route, found.values, req.path);
  const spec = requestValidators[route.operationId];
  const validateBody = bodyValidator(spec, req.headers["content-type"], expressPath(route.path));
  checkQuery(spec, req);
  if (validateBody && String(req.headers["content-type"]).toLowerCase().startsWith("multipart/form-data"))
    req.body ??= {};
  const data = { query: req.query, headers: req.headers, params, cookies: undefined, body: req.body };
  const valid = spec.parameters(data);
  if (valid) {
    refuseNonFinite("query", req.query);
    refuseNonFinite("params", params);
  }
  const validBody = validateBody ? validateBody(data) : true;
  if (valid && validBody) {
    req.body = data.body;
    return { route, params };
  }
  const errors = [...(spec.parameters.errors ?? []), ...((validateBody?.errors as ErrorObject[]) ?? [])];
  throw { status: 400, message: "request validation failed", errors: errors.map(fieldError) };
}

/**
 * Refuses a number ajv coerced from text to Infinity: "1e309" is coerced after the type check, and
 * ajv's minimum/maximum skip non-finite numbers, so `limit=1e309` passed `maximum: 500` and reached
 * the store (SQLite: datatype mismatch, a 500).
 */
function refuseNonFinite(where: "query" | "params", values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === "number" && !Number.isFinite(value)) {
      const errors = [{ path: `/${where}/${name}`, message: "must be a finite number" }];
      throw { status: 400, message: "request validation failed", errors } satisfies RequestRefusal;
    }
  }
}

function decodeParams(route: Route, values: string[], path: string): Record<string, string> {
  const params: Record<string, string> = {};
  try {
    for (let i = 0; i < route.params.length; i++) params[route.params[i]!] = decodeURIComponent(values[i]!);
  } catch {
    throw refusal(400, path, "malformed uri'");
  }
  return params;
}

/** The body validator for the request's media type; undefined when the body goes unchecked. */
function bodyValidator(spec: OperationRequest, contentType: string | string[] | undefined, route: string) {
  if (!spec.bodies) return undefined;
  const header = typeof contentType === "string" && contentType !== "" ? contentType : undefined;
  const mediaType = header === undefined ? undefined : header.split(";")[0]!.toLowerCase().trim();
  const validate = mediaType === undefined ? undefined : spec.bodies[mediaType];
  if (validate) return validate;
  if (mediaType === undefined && spec.bodyOptional) return undefined;
  throw refusal(
    415,
    route,
    `unsupported media type ${header === undefined ? "undefined" : normalized(header)}`,
  );
}

/** A media type as express-openapi-validator names it: lowercase, parameters sorted, no boundary. */
function normalized(header: string): string {
  const params = new Map<string, string>();
  for (const [, key, value] of header.matchAll(/;\s*([^=]+)=([^;]+)/g)) {
    const name = key!.toLowerCase();
    params.set(name, name === "charset" ? value!.toLowerCase() : value!);
  }
  const names = [...params.keys()].filter((name) => name !== "boundary").sort();
  return (
    header.split(";")[0]!.toLowerCase().trim() + names.map((name) => `; ${name}=${params.get(name)}`).join("")
  );
}

function checkQuery(spec: OperationRequest, req: RequestParts): void {
  const raw = rawQuery(req.originalUrl);
  for (const name of spec.query) {
    if (spec.reservedAllowed.includes(name)) continue;
    for (const value of raw.get(name) ?? []) {
      if (value !== undefined && RESERVED.test(value))
        throw refusal(
          400,
          `/query/${name}`,
          `Parameter '${name}' must be url encoded. Its value may not contain reserved characters.`,
        );
    }
  }
  nestBracketNames(req.query);
  normalizeBooleans(req.query, spec.booleans);
  for (const name of Object.keys(req.query)) {
    if (!spec.query.includes(name)) throw refusal(400, `/query/${name}`, `Unknown query parameter '${name}'`);
    if (!spec.emptyAllowed.includes(name) && req.query[name] === "")
      throw refusal(400, `/query/${name}`, `Empty value found for query parameter '${name}'`);
  }
}

/** The query's values before decoding, by undecoded name (a value is cut at a second `=`). */
function rawQuery(url: string): Map<string, (string | undefined)[]> {
  const pairs = new Map<string, (string | undefined)[]>();
  const query = parseUrl(url).query;
  if (!query) return pairs;
  for (const pair of query.replace("?", "").split("&")) {
    const [name, value] = pair.split("=") as [string, string | undefined];
    pairs.set(name, [...(pairs.get(name) ?? []), value]);
  }
  return pairs;
}

/** `a[b]=1` is an object `a` to the validator (qs's bracket notation), so the refusal names `a`. */
function nestBracketNames(query: Record<string, unknown>): void {
  for (const key of Object.keys(query)) {
    const name = key.split("[")[0]!;
    if (!key.includes("[") || name === "") continue;
    query[name] = { [key]: query[key] };
    delete query[key];
  }
}

/**
 * express-openapi-validator's error entry: the missing or extra member's path when there is one,
 * else the instance path. Its `&&`/`??` chain is kept as it is, so a member named "" gives "".
 */
function fieldError(e: ErrorObject): { path: string; message: string } {
  const p = e.params as {
    missingProperty?: string;
    additionalProperty?: string;
    unevaluatedProperty?: string;
    allowedValues?: unknown[];
  };
  const message =
    e.keyword === "enum" && p.allowedValues ? `${e.message}: ${p.allowedValues.join(", ")}` : e.message;
  const at = (name: string | undefined) =>
    name === undefined ? undefined : name && `${e.instancePath}/${name}`;
  const path =
    at(p.missingProperty) ?? at(p.additionalProperty) ?? at(p.unevaluatedProperty) ?? e.instancePath;
  return { path, message: message ?? "invalid" };
}

function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** The methods of a path's operations, HEAD beside GET. */
function allowed(routes: readonly Route[]): string[] {
  const methods = routes.map((r) => r.method.toUpperCase());
  if (methods.includes("GET")) methods.push("HEAD");
  return methods;
}

function refusal(status: RequestRefusal["status"], path: string, message: string): RequestRefusal {
  return { status, message, errors: [{ path, message }] };
}
