// Keeps specs/openapi.yaml honest: every schema compiles under strict JSON Schema 2020-12 rules,
// every example (schema, parameter, header, request and response examples) validates against its
// schema, and the operation table the server routes by (operationId, method, path, security,
// headers) stays what the contract promises. Prism serves these examples and express-openapi-validator
// checks responses against these schemas, so an invalid example is a bug in the contract.
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

type Json = Record<string, unknown>;
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;

const SPEC_URL = new URL("../../specs/openapi.yaml", import.meta.url);
const SPEC_ID = "https://stampd.invalid/openapi.json";
const spec = parse(readFileSync(SPEC_URL, "utf8")) as Json;

// ajv-formats is CommonJS; depending on the loader the default import is the plugin or its module.
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;

function createAjv(): Ajv2020 {
  // strict: unknown keywords (a typo, or a YAML flow map split by a comma) fail compilation.
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("binary", true); // multipart file parts
  // OpenAPI-only keywords that may appear inside schemas.
  for (const keyword of ["example", "discriminator", "xml", "externalDocs"]) ajv.addKeyword(keyword);
  ajv.addKeyword("components"); // lets '#/components/...' refs resolve inside the document below
  ajv.addSchema({ $id: SPEC_ID, components: spec.components });
  return ajv;
}

const ajv = createAjv();
const validators = new Map<string, ValidateFunction>();

function validatorFor(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(rebase(schema) as Json);
    validators.set(key, validate);
  }
  return validate;
}

/** Points local '#/components/...' refs of an inline schema at the registered document. */
function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" && value.startsWith("#/")
        ? `${SPEC_ID}${value}`
        : rebase(value),
    ]),
  );
}

/** Follows a local '$ref' (one or more hops) to the object it names. */
function resolve<T = Json>(node: unknown): T {
  let current = node as Json;
  for (let hops = 0; typeof current?.$ref === "string"; hops++) {
    if (hops > 10) throw new Error(`ref loop at ${String(current.$ref)}`);
    const pointer = (current.$ref as string).replace(/^#\//, "").split("/");
    current = pointer.reduce<Json>(
      (at, part) => at?.[part.replace(/~1/g, "/").replace(/~0/g, "~")] as Json,
      spec,
    );
    if (current === undefined) throw new Error(`unresolved ref ${String(node)}`);
  }
  return current as T;
}

function errorsOf(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: "\n", dataVar: "example" });
}

type ExampleCase = { where: string; schema: unknown; value: unknown };

/** Every `example` / `examples` of a media type, parameter or header object. */
function examplesOf(where: string, holder: Json, schema: unknown): ExampleCase[] {
  const cases: ExampleCase[] = [];
  if ("example" in holder) cases.push({ where: `${where} example`, schema, value: holder.example });
  for (const [name, example] of Object.entries((holder.examples ?? {}) as Json)) {
    const resolved = resolve<Json>(example);
    if ("externalValue" in resolved) continue;
    cases.push({ where: `${where} examples.${name}`, schema, value: resolved.value });
  }
  return cases;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
type Operation = { method: string; path: string; op: Json };

const operations: Operation[] = Object.entries(spec.paths as Record<string, Json>).flatMap(([path, item]) =>
  METHODS.filter((method) => method in item).map((method) => ({ method, path, op: item[method] as Json })),
);

function operationExamples({ method, path, op }: Operation): ExampleCase[] {
  const at = `${method.toUpperCase()} ${path}`;
  const cases: ExampleCase[] = [];
  for (const parameter of (op.parameters ?? []) as Json[]) {
    const p = resolve(parameter);
    cases.push(...examplesOf(`${at} parameter ${String(p.name)}`, p, p.schema));
  }
  if (op.requestBody) {
    const content = resolve(op.requestBody).content as Record<string, Json>;
    for (const [mediaType, media] of Object.entries(content)) {
      cases.push(...examplesOf(`${at} request ${mediaType}`, media, media.schema));
    }
  }
  for (const [status, response] of Object.entries(op.responses as Json)) {
    const r = resolve(response);
    for (const [name, header] of Object.entries((r.headers ?? {}) as Json)) {
      const h = resolve(header);
      cases.push(...examplesOf(`${at} ${status} header ${name}`, h, h.schema));
    }
    for (const [mediaType, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
      cases.push(...examplesOf(`${at} ${status} ${mediaType}`, media, media.schema));
    }
  }
  return cases;
}

// The server routes by operationId: method, path and operationId must not drift apart.
const EXPECTED_OPERATIONS: Record<string, string> = {
  getRoot: "GET /",
  getHealth: "GET /health",
  getReady: "GET /ready",
  getMetrics: "GET /metrics",
  getOpenApi: "GET /openapi.json",
  getDocs: "GET /docs",
  getRedoc: "GET /redoc",
  getDashboard: "GET /dashboard",
  getDashboardStats: "GET /dashboard/stats",
  getVerifyPage: "GET /verify/{stamp_id}",
  getWsStats: "GET /ws/stats",
  searchStamps: "GET /stamps",
  createStamp: "POST /stamps",
  getStamp: "GET /stamps/{stamp_id}",
  getStampProof: "GET /stamps/{stamp_id}/proof",
  getStampTimestamp: "GET /stamps/{stamp_id}/timestamp.tsr",
  getStampOpenTimestamps: "GET /stamps/{stamp_id}/timestamp.ots",
  getStampSigstoreBundle: "GET /stamps/{stamp_id}/sigstore",
  getSigstoreTrustedRoot: "GET /sigstore/trusted_root.json",
  getStampLogTilesCheckpoint: "GET /log/stamps/tiles/checkpoint",
  getStampLogTile: "GET /log/stamps/tiles/tile/{level}/{s1}",
  getStampLogTile2: "GET /log/stamps/tiles/tile/{level}/{s1}/{s2}",
  getStampLogTile3: "GET /log/stamps/tiles/tile/{level}/{s1}/{s2}/{s3}",
  getStampLogTile4: "GET /log/stamps/tiles/tile/{level}/{s1}/{s2}/{s3}/{s4}",
  getLogInfo: "GET /log",
  getLogCheckpoint: "GET /log/checkpoint",
  getLogInclusion: "GET /log/inclusion",
  getLogConsistency: "GET /log/consistency",
  getTsaCertificate: "GET /tsa/ca.pem",
  verifyStamp: "POST /stamps/{stamp_id}/verify",
  verifyStampJson: "POST /verify",
  createFingerprint: "POST /fingerprint",
  compareFingerprints: "POST /fingerprint/compare",
  createFingerprintProof: "POST /fingerprint/proof",
  getShadow: "GET /fingerprint/{stamp_id}/shadow/{scale}",
  createIdentity: "POST /identity",
  getIdentity: "GET /identity/{identity_id}",
  getKeyRing: "GET /keys",
  listPresets: "GET /presets",
  getPreset: "GET /presets/{name}",
  hashFile: "POST /hash",
  createVault: "POST /vault/create",
  heartbeatVault: "POST /vault/{id}/heartbeat",
  batchHeartbeat: "POST /vault/batch-heartbeat",
  getVault: "GET /vault/{id}",
  releaseVault: "POST /vault/{id}/release",
  retrieveVaultKey: "POST /vault/{id}/retrieve",
  burnVault: "POST /vault/{id}/burn",
  listVaults: "GET /vault/list",
  createHeartbeatGroup: "POST /vault/group/create",
  getVaultFees: "GET /vault/fees",
  addVaultMirror: "POST /vault/{id}/add-mirror",
  getExplorerPage: "GET /explorer",
  listExplorerVaults: "GET /explorer/api/vaults",
  getExplorerStats: "GET /explorer/api/stats",
  getLogTilesCheckpoint: "GET /log/tiles/checkpoint",
  getLogTile: "GET /log/tiles/tile/{level}/{s1}",
  getLogTile2: "GET /log/tiles/tile/{level}/{s1}/{s2}",
  getLogTile3: "GET /log/tiles/tile/{level}/{s1}/{s2}/{s3}",
  getLogTile4: "GET /log/tiles/tile/{level}/{s1}/{s2}/{s3}/{s4}",
};
const KEY_REQUIRED = new Set([
  "createIdentity",
  ...Object.entries(EXPECTED_OPERATIONS)
    .filter(([id, route]) => route.includes(" /vault/") && id !== "getVaultFees")
    .map(([id]) => id),
]);
const RATE_LIMIT_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-RateLimit-Tier",
];
const OPTIONAL_KEY = [{}, { bearerAuth: [] }, { apiKeyHeader: [] }];
const REQUIRED_KEY = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

describe("specs/openapi.yaml", () => {
  it("is OpenAPI 3.1", () => {
    expect(spec.openapi).toMatch(/^3\.1\.\d+$/);
  });

  describe("component schemas compile and their examples validate", () => {
    const schemas = Object.keys((spec.components as Json).schemas as Json);
    it.each(schemas)("%s", (name) => {
      const validate = validatorFor({ $ref: `#/components/schemas/${name}` });
      const schema = resolve({ $ref: `#/components/schemas/${name}` });
      for (const [index, value] of ((schema.examples ?? []) as unknown[]).entries()) {
        expect(validate(value), `examples[${index}]: ${errorsOf(validate)}`).toBe(true);
      }
    });
  });

  describe("component parameter and header examples validate", () => {
    const components = spec.components as Record<string, Record<string, Json>>;
    const cases = [
      ...Object.entries(components.parameters ?? {}).flatMap(([name, p]) =>
        examplesOf(`parameters.${name}`, p, p.schema),
      ),
      ...Object.entries(components.headers ?? {}).flatMap(([name, h]) =>
        examplesOf(`headers.${name}`, h, h.schema),
      ),
    ];
    it.each(cases.map((c) => [c.where, c] as const))("%s", (_where, { schema, value }) => {
      const validate = validatorFor(schema);
      expect(validate(value), errorsOf(validate)).toBe(true);
    });
  });

  describe.each(operations.map((o) => [String(o.op.operationId), o] as const))("%s", (_id, operation) => {
    const cases = operationExamples(operation);

    it("has valid examples", () => {
      expect(cases.length).toBeGreaterThan(0);
      for (const { where, schema, value } of cases) {
        const validate = validatorFor(schema);
        expect(validate(value), `${where}: ${errorsOf(validate)}`).toBe(true);
      }
    });

    it("gives every response with a body an example", () => {
      for (const [status, response] of Object.entries(operation.op.responses as Json)) {
        for (const [mediaType, media] of Object.entries(
          (resolve(response).content ?? {}) as Record<string, Json>,
        )) {
          const has = "example" in media || Object.keys((media.examples ?? {}) as Json).length > 0;
          expect(has, `${status} ${mediaType} has no example`).toBe(true);
        }
      }
    });

    // Every response carries the rate-limit headers, an exempt path's too: there they show the
    // caller's figures without charging them (docs/design.md "Rate limiting").
    it("declares X-Request-Id and the rate-limit headers everywhere", () => {
      for (const [status, response] of Object.entries(operation.op.responses as Json)) {
        const headers = Object.keys((resolve(response).headers ?? {}) as Json);
        expect(headers, status).toContain("X-Request-Id");
        for (const header of RATE_LIMIT_HEADERS) expect(headers, status).toContain(header);
      }
    });
  });

  it("routes exactly the expected operations", () => {
    const actual = Object.fromEntries(
      operations.map(({ method, path, op }) => [op.operationId, `${method.toUpperCase()} ${path}`]),
    );
    expect(actual).toEqual(EXPECTED_OPERATIONS);
  });

  it("requires a key exactly where design.md says", () => {
    for (const { op } of operations) {
      const id = String(op.operationId);
      expect(op.security, id).toEqual(KEY_REQUIRED.has(id) ? REQUIRED_KEY : OPTIONAL_KEY);
    }
  });
});
