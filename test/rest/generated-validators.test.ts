// The generated route table and request validators (gen/rest/, checked through
// server/rest/middleware/request-validation.ts) against express-openapi-validator, as an independent second
// opinion (issue #24): on the REST fuzz corpus (test/fuzz/rest, fixed seed), two express apps that
// differ only in which of them checks the request must answer every request alike: the same status
// and the same body, which is the error in the spec's shape or, when accepted, the operation with
// its path parameters, the query after coercion and defaults, and the body after defaults. Beside
// the corpus, every path of the spec with every method it does not take (405) and paths it does not
// have (404). The reference is express-openapi-validator set up as the REST app ran it before the
// generated validators took over its request checks.

import { Agent, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SpecModel } from "../../cli/conformance/spec-model.js";
import { listOperations, loadSpec } from "../../server/contract/openapi.js";
import { createLogger } from "../../server/logger.js";
import { errorHandler } from "../../server/rest/middleware/error-handler.js";
import { jsonBody } from "../../server/rest/middleware/json-body.js";
import { checkRequest } from "../../server/rest/middleware/request-validation.js";
import { Rng } from "../fuzz/random.js";
import { makeFixtures } from "../fuzz/rest/fixtures.js";
import { mutations } from "../fuzz/rest/mutations.js";
import { type GenContext, validParts } from "../fuzz/rest/valid-parts.js";
import { send, toWire, type Wire } from "../fuzz/rest/wire.js";
import { SchemaValues } from "../fuzz/schema-values.js";
import { type RunningService, startService } from "../helpers/service.js";

const SEED = 24;
const REQUESTS = 3000;
/** As rest-fuzz.ts: the share of requests left valid; the rest get one mutation. */
const VALID_SHARE = 0.35;

let svc: RunningService;
let ctx: GenContext;
const servers: Server[] = [];
const urls: { reference: string; generated: string } = { reference: "", generated: "" };

beforeAll(async () => {
  svc = await startService({ VALIDATE_RESPONSES: "false" });
  const model = new SpecModel();
  const components = (model.spec.components as { schemas: Record<string, unknown> }).schemas;
  ctx = { model, values: new SchemaValues(components), fixtures: await makeFixtures(svc) };
  urls.reference = await listen(
    OpenApiValidator.middleware({
      apiSpec: specForRequestValidator() as never,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: false,
      fileUploader: false,
      ignoreUndocumented: false,
    }),
  );
  urls.generated = await listen([generatedCheck]);
}, 120_000);
afterAll(async () => {
  for (const server of servers) server.close();
  await svc?.close();
});

/**
 * A copy of the spec in which multipart bodies accept any object: the validator runs with
 * `fileUploader: false` (multer would buffer uploads), so it sees `req.body = {}` and would refuse
 * every upload for a missing `file`; receiveUpload checks the form itself.
 */
function specForRequestValidator(): unknown {
  type Json = Record<string, unknown>;
  const copy = structuredClone(loadSpec()) as unknown as { paths: Record<string, Record<string, Json>> };
  for (const item of Object.values(copy.paths)) {
    for (const op of Object.values(item)) {
      const content = (op.requestBody as { content?: Record<string, Json> } | undefined)?.content;
      const media = content?.["multipart/form-data"];
      if (media) media.schema = { type: "object" };
    }
  }
  return copy;
}

const generatedCheck: RequestHandler = (req, _res, next) => {
  // express 5's req.query is a getter; express-openapi-validator makes it writable the same way.
  Object.defineProperty(req, "query", { value: req.query, writable: true });
  try {
    const { route, params } = checkRequest(req);
    req.params = params;
    Object.assign(req, { openapi: { operationId: route.operationId } });
    next();
  } catch (err) {
    next(err);
  }
};

async function listen(check: RequestHandler[]): Promise<string> {
  const app = express();
  app.use(jsonBody(svc.config.MAX_FINGERPRINT_JSON_BYTES));
  app.use(check);
  app.use((req, res) => {
    const operationId = (req as { openapi?: { schema?: { operationId?: string }; operationId?: string } })
      .openapi;
    res.json({
      operationId: operationId?.operationId ?? operationId?.schema?.operationId,
      params: req.params,
      query: req.query,
      body: req.body,
    });
  });
  app.use(errorHandler(createLogger({ LOG_LEVEL: "silent" })));
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function fuzzed(index: number): { method: string; wire: Wire; mutation: string } {
  const rng = Rng.forItem(SEED, index);
  const op = rng.pick(ctx.model.operations);
  const parts = validParts(ctx, op, rng);
  const applicable = mutations.filter((m) => m.applies(op, parts));
  const mutation = rng.chance(VALID_SHARE) || applicable.length === 0 ? undefined : rng.pick(applicable);
  mutation?.apply(parts, rng, op);
  return { method: op.method, wire: toWire(op, parts), mutation: mutation?.name ?? "valid" };
}

/** Requests outside the spec: each path with each method it lacks, and paths it does not have. */
function outsideTheSpec(): { method: string; url: string }[] {
  const operations = listOperations();
  const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "x1");
  const methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"];
  const requests = [...new Set(operations.map((op) => op.path))].flatMap((path) => {
    const taken = new Set(operations.filter((op) => op.path === path).map((op) => op.method.toUpperCase()));
    const url = concrete(path);
    const odd = [url.toUpperCase(), `${url}/`, `${url}//`, `${url}/more`, `/more${url}`, `${url}.json`];
    return [
      ...methods.filter((m) => !taken.has(m)).map((method) => ({ method, url })),
      ...odd.flatMap((oddUrl) => ["GET", "POST"].map((method) => ({ method, url: oddUrl }))),
    ];
  });
  const unknown = ["/no/such/path", "/stamp", "/stamps/x1/y1/z1", "//", "/%E0%A4%A", "/log/tiles/tile/1"];
  return [...requests, ...unknown.flatMap((url) => methods.map((method) => ({ method, url })))];
}

it("the generated route table answers 404 and 405 as express-openapi-validator does", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const differences: string[] = [];
  const statuses = new Set<number>();
  for (const { method, url } of outsideTheSpec()) {
    const wire: Wire = { url, headers: {} };
    // One deliberate difference: HEAD is GET without the body wherever GET is served (RFC 9110
    // section 9.3.2), where express-openapi-validator knows no HEAD operation and answers 405.
    const [want, got] = await Promise.all([
      send(urls.reference, agent, method === "HEAD" ? "GET" : method, wire),
      send(urls.generated, agent, method, wire),
    ]);
    if (method === "HEAD") want.body = Buffer.alloc(0);
    statuses.add(want.status);
    const a = `${want.status} ${want.body.toString()}`;
    const b = `${got.status} ${got.body.toString()}`;
    if (a !== b) differences.push(`${method} ${url}\n  eov:       ${a}\n  generated: ${b}`);
  }
  agent.destroy();
  expect(differences.slice(0, 10).join("\n")).toBe("");
  // Both refusals were met, and some odd paths were served (a trailing slash, capitals).
  expect([...statuses]).toEqual(expect.arrayContaining([404, 405, 200]));
});

it(`the generated validators accept and refuse what express-openapi-validator does (${REQUESTS} fuzzed requests, seed ${SEED})`, {
  timeout: 300_000,
}, async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const differences: string[] = [];
  const outcomes = { accepted: 0, refused: 0 };
  for (let i = 0; i < REQUESTS; i++) {
    const { method, wire, mutation } = fuzzed(i);
    const [want, got] = await Promise.all([
      send(urls.reference, agent, method, wire),
      send(urls.generated, agent, method, wire),
    ]);
    outcomes[want.status === 200 ? "accepted" : "refused"]++;
    const a = `${want.status} ${want.body.toString()}`;
    const b = `${got.status} ${got.body.toString()}`;
    if (a !== b)
      differences.push(
        [
          `#${i} ${mutation}: ${method.toUpperCase()} ${wire.url}`,
          `  content-type: ${wire.headers["content-type"]}; body: ${wire.body?.toString().slice(0, 300)}`,
          `  eov:       ${a.slice(0, 300)}`,
          `  generated: ${b.slice(0, 300)}`,
        ].join("\n"),
      );
  }
  agent.destroy();
  expect(differences.slice(0, 10).join("\n")).toBe("");
  // The corpus reached both sides of the line.
  expect(outcomes.accepted).toBeGreaterThan(REQUESTS / 10);
  expect(outcomes.refused).toBeGreaterThan(REQUESTS / 10);
});
