import fc from "fast-check";
import type { OperationModel, ParamModel, SpecModel } from "../../../cli/conformance/spec-model.js";
import type { OperationId } from "../../../server/contract/openapi.js";
import type { Part } from "../../helpers/multipart.js";
import type { Rng } from "../random.js";
import type { SchemaValues } from "../schema-values.js";
import type { FuzzFixtures } from "./fixtures.js";
import type { Auth, Body, RequestParts } from "./request.js";

type Json = Record<string, unknown>;

/** What a generator needs besides the random stream. */
export interface GenContext {
  model: SpecModel;
  values: SchemaValues;
  fixtures: FuzzFixtures;
}

/** A request the spec calls valid: values drawn from the schemas, ids often taken from live fixtures. */
export function validParts(ctx: GenContext, op: OperationModel, rng: Rng): RequestParts {
  const pathParams: Record<string, string> = {};
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  for (const param of op.params) {
    if (!param.required && !rng.chance(0.5)) continue;
    const value = paramValue(ctx, op, param, rng);
    if (value === undefined) continue;
    if (param.in === "path") pathParams[param.name] = value;
    else if (param.in === "query") query.push([param.name, value]);
    else headers[param.name] = value;
  }
  return {
    pathParams,
    query,
    headers,
    auth: validAuth(ctx.fixtures, rng),
    body: validBody(ctx, op, pathParams, rng),
  };
}

function validAuth(fixtures: FuzzFixtures, rng: Rng): Auth {
  const header = rng.pick(["bearer", "x-api-key"] as const);
  if (rng.chance(0.85)) return { kind: "owner", key: rng.pick(fixtures.ownerKeys), header };
  if (rng.chance(0.5)) return { kind: "other", key: rng.pick(fixtures.otherKeys), header };
  return anonymous(rng);
}

/** No key; a fresh client address (believed from loopback, a trusted proxy) gives it a bucket of its own. */
export function anonymous(rng: Rng): Auth {
  return { kind: "anonymous", clientIp: `198.${18 + rng.int(2)}.${rng.int(256)}.${rng.int(256)}` };
}

function paramValue(ctx: GenContext, op: OperationModel, param: ParamModel, rng: Rng): string | undefined {
  const live = [
    ...liveId(ctx.fixtures, op.operationId, param.name),
    ...logPosition(ctx.fixtures, op.operationId, param.name),
  ];
  if (live.length > 0 && rng.chance(0.6)) return rng.pick(live);
  const value = ctx.values.valid(rng, param.schema, param.check);
  return value === undefined ? undefined : String(value);
}

function liveId(fixtures: FuzzFixtures, operationId: OperationId, name: string): string[] {
  if (name === "stamp_id") return fixtures.stampIds;
  if (name === "identity_id") return fixtures.identityIds;
  if (name === "id" && operationId !== "getVerifyPage") return fixtures.vaultIds;
  return [];
}

/** Positions within the log, so the log proofs reach their 200 (the log holds a few entries). */
function logPosition(fixtures: FuzzFixtures, operationId: OperationId, name: string): string[] {
  const size = fixtures.logSize;
  if (operationId === "getLogInclusion")
    return name === "index" ? ["0"] : name === "tree_size" ? [String(size)] : [];
  if (operationId === "getLogConsistency")
    return name === "first" ? ["1"] : name === "second" ? [String(size)] : [];
  return [];
}

function validBody(ctx: GenContext, op: OperationModel, path: Record<string, string>, rng: Rng): Body {
  const types = [...op.body.keys()];
  if (types.length === 0 || (!op.bodyRequired && rng.chance(0.3))) return { kind: "none" };
  const type = rng.pick(types);
  const { schema, check } = op.body.get(type)!;
  if (type === "multipart/form-data") return multipartBody(ctx, schema, rng, op.operationId);
  const value = ctx.values.valid(rng, schema, check) ?? {};
  const live = rng.chance(0.6) ? liveBody(ctx.fixtures, op.operationId, path, rng) : {};
  return { kind: "json", value: { ...(value as Json), ...live } };
}

/** Text fields drawn from the form schema (as text, the way a form sends them), then the file. */
function multipartBody(ctx: GenContext, schema: Json, rng: Rng, operationId: OperationId): Body {
  const formSchema = ctx.model.resolve(schema);
  const textSchema = {
    ...formSchema,
    properties: { ...(formSchema.properties as Json) },
    required: [] as string[],
  };
  delete (textSchema.properties as Json).file;
  const values = (ctx.values.valid(rng, textSchema, ctx.model.compile(textSchema)) ?? {}) as Json;
  const fields = Object.entries(values).map(
    ([name, v]) => [name, typeof v === "string" ? v : JSON.stringify(v)] as [string, string],
  );
  if (operationId === "verifyStampJson") {
    const index = fields.findIndex(([name]) => name === "stamp_json");
    const document = JSON.stringify(rng.pick(ctx.fixtures.stampDocuments));
    if (index >= 0) fields[index] = ["stamp_json", document];
    else fields.push(["stamp_json", document]);
  }
  if (operationId === "createStamp" && rng.chance(0.5)) ownIdentity(fields, ctx.fixtures);
  const parts: Part[] = fields.map(([name, value]) => ({ name, value }));
  const wantsFile = ((formSchema.required ?? []) as string[]).includes("file") || rng.chance(0.6);
  if (wantsFile) parts.push({ name: "file", value: rng.draw(document), filename: rng.draw(filename) });
  return { kind: "multipart", parts };
}

/** Identity ids of other accounts get 403 and unknown ones 404; signing with our own reaches 201. */
function ownIdentity(fields: [string, string][], fixtures: FuzzFixtures): void {
  const index = fields.findIndex(([name]) => name === "identity_id");
  if (index >= 0) fields[index] = ["identity_id", fixtures.identityIds[0]!];
}

// No quotes or line breaks: the multipart writer does not escape file names.
const filename = fc.oneof(
  fc.constantFrom("doc.txt", "a.pdf", "x"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((s) => !/["\\\r\n]/.test(s)),
);

/** A document: text (with sections, for the fingerprinter) or arbitrary bytes, possibly empty. */
const document: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .string({ unit: "grapheme", maxLength: 2000 })
    .map((s) => new TextEncoder().encode(`# t\n\n${s}\f\n${s}`)),
  fc.uint8Array({ maxLength: 4096 }),
);

/** Live values that make a schema-valid body also meaningful (a receipt the server trusts, a real fingerprint). */
function liveBody(
  fixtures: FuzzFixtures,
  operationId: OperationId,
  path: Record<string, string>,
  rng: Rng,
): Json {
  const receipt = () => (fixtures.receipts.length > 0 ? { fee_receipt: fixtures.receipts.pop()! } : {});
  const fingerprint = () => rng.pick(fixtures.fingerprints);
  switch (operationId) {
    case "createVault":
      return { ...fixtures.vaultRequest };
    case "heartbeatVault":
      return receipt();
    case "batchHeartbeat":
      return { vault_ids: fixtures.vaultIds.slice(0, 1 + rng.int(3)), ...receipt() };
    case "createHeartbeatGroup":
      return { vault_ids: [rng.pick(fixtures.vaultIds)] };
    case "retrieveVaultKey":
      return { ...(fixtures.retrieveProofs.get(path.id ?? "") ?? {}) };
    case "verifyStampJson":
      return { stamp_json: rng.pick(fixtures.stampDocuments) };
    case "compareFingerprints":
      return { fingerprint1: fingerprint(), fingerprint2: fingerprint() };
    case "createFingerprintProof":
      return { fingerprint_json: fingerprint(), reference_fingerprint: fingerprint() };
    default:
      return {};
  }
}
