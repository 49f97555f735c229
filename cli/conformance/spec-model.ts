import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { listOperations, loadSpec, type Method, type OperationId } from "../../server/contract/openapi.js";

type Json = Record<string, unknown>;
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;

/** The id the whole spec is registered under with ajv, so that every `$ref` resolves by pointer. */
const SPEC_ID = "stampd-conformance:openapi";

export interface ParamModel {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  /** The parameter's schema, refs left in place (they resolve against the spec). */
  schema: Json;
  /** Checks a raw value the way a validator coerces strings ("5" is an integer). */
  check: ValidateFunction;
}

export interface HeaderModel {
  name: string;
  required: boolean;
  check: ValidateFunction;
}

export interface ResponseModel {
  status: string;
  headers: HeaderModel[];
  /** Content type -> body validator (null where the spec types the body as text or binary). */
  content: Map<string, ValidateFunction | null>;
}

export interface OperationModel {
  operationId: OperationId;
  method: Method;
  path: string;
  /** No `{}` alternative in `security`: the operation needs a key. */
  needsKey: boolean;
  /** The path as a regular expression, parameters matching one segment. */
  pattern: RegExp;
  params: ParamModel[];
  /** Request body: content type -> schema (refs in place) and its validator. */
  body: Map<string, { schema: Json; check: ValidateFunction }>;
  bodyRequired: boolean;
  responses: Map<string, ResponseModel>;
}

/** One HTTP answer as it was seen on the wire. */
export interface SeenResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * specs/openapi.yaml read at run time: every operation with its parameters, request bodies and
 * documented responses, each with an ajv validator compiled from the spec itself (JSON Schema
 * 2020-12, as OpenAPI 3.1 is). The conformance kit judges every answer it receives by these; the
 * REST fuzzer (test/fuzz/rest) builds its requests and verdicts on them too, so they rest on the
 * spec and not on the server's own validator.
 */
export class SpecModel {
  readonly spec = loadSpec() as unknown as Json;
  readonly operations: OperationModel[];
  /** Plain validation, for bodies. */
  private readonly ajv = this.newAjv(false);
  /** Validation that coerces text the way query, path and header values are read ("60" is an integer). */
  private readonly coercing = this.newAjv(true);

  constructor() {
    // Literal segments come first (listOperations' order), so /vault/list wins over /vault/{id}.
    this.operations = listOperations().map((op) => this.build(op.operationId, op.method, op.path));
  }

  operation(operationId: OperationId): OperationModel {
    return this.operations.find((o) => o.operationId === operationId)!;
  }

  /** The operation a request went to, by method and path (below the base URL's own path). */
  match(method: string, path: string): OperationModel | undefined {
    const lower = method.toLowerCase();
    return this.operations.find((o) => o.method === lower && o.pattern.test(path));
  }

  /** Follows a local `$ref` (as many times as it takes). */
  resolve<T = Json>(node: Json): T {
    let at = node;
    while (typeof at?.$ref === "string") at = this.at(at.$ref as string);
    return at as T;
  }

  /** A validator of any schema that may `$ref` the spec's components. */
  compile(schema: Json, coerce = false): ValidateFunction {
    return (coerce ? this.coercing : this.ajv).compile(rebase(schema));
  }

  private build(operationId: OperationId, method: Method, path: string): OperationModel {
    const pointer = `#/paths/${pointerSegment(path)}/${method}`;
    const op = this.resolve(this.at(pointer));
    const security = (op.security ?? this.spec.security ?? []) as Json[];
    const body = this.resolve((op.requestBody as Json | undefined) ?? {});
    const bodyPointer = refOf(op.requestBody) ?? `${pointer}/requestBody`;
    const literal = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
    return {
      operationId,
      method,
      path,
      needsKey: !security.some((s) => Object.keys(s).length === 0),
      pattern: new RegExp(`^${literal.join("[^/]+")}$`),
      params: ((op.parameters ?? []) as Json[]).map((p) => this.param(p)),
      body: new Map(
        Object.entries((body.content ?? {}) as Record<string, Json>).map(([type, media]) => [
          type,
          {
            schema: media.schema as Json,
            check: this.pointed(`${bodyPointer}/content/${pointerSegment(type)}`),
          },
        ]),
      ),
      bodyRequired: body.required === true,
      responses: new Map(
        Object.entries(op.responses as Record<string, Json>).map(([status, r]) => [
          status,
          this.response(status, r, refOf(r) ?? `${pointer}/responses/${status}`),
        ]),
      ),
    };
  }

  private param(node: Json): ParamModel {
    const p = this.resolve(node);
    return {
      name: p.name as string,
      in: p.in as ParamModel["in"],
      required: p.required === true,
      schema: p.schema as Json,
      check: this.compile(p.schema as Json, true),
    };
  }

  private response(status: string, node: Json, pointer: string): ResponseModel {
    const r = this.resolve(node);
    const headers = Object.entries((r.headers ?? {}) as Record<string, Json>).map(([name, h]) => {
      const header = this.resolve(h);
      return { name, required: header.required === true, check: this.compile(header.schema as Json, true) };
    });
    const content = new Map<string, ValidateFunction | null>();
    for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
      const typed = type.includes("json") && media.schema !== undefined;
      content.set(type, typed ? this.pointed(`${pointer}/content/${pointerSegment(type)}`) : null);
    }
    return { status, headers, content };
  }

  /** The validator of the schema of the media type object at `media` (a pointer into the spec). */
  private pointed(media: string): ValidateFunction {
    return this.ajv.compile({ $ref: `${SPEC_ID}${media}/schema` });
  }

  private at(pointer: string): Json {
    return pointer
      .slice(2)
      .split("/")
      .map((part) => decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<Json>((node, part) => node[part] as Json, this.spec);
  }

  private newAjv(coerceTypes: boolean): Ajv2020 {
    const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
    addFormats(ajv);
    // `binary` marks file parts and raw bodies; there is nothing to check in their text.
    ajv.addFormat("binary", true);
    ajv.addSchema(this.spec, SPEC_ID);
    return ajv;
  }
}

/** The response the spec documents for `status` (exact, then `4XX`-style, then `default`). */
export function documentedResponse(op: OperationModel, status: number): ResponseModel | undefined {
  return (
    op.responses.get(String(status)) ??
    op.responses.get(`${String(status)[0]}XX`) ??
    op.responses.get("default")
  );
}

/**
 * What is wrong with `res` as an answer of `op` (empty: nothing): an undocumented status, a body
 * of an undocumented content type or against its schema, a documented header missing or invalid.
 */
export function responseProblems(op: OperationModel, res: SeenResponse): string[] {
  const documented = documentedResponse(op, res.status);
  if (!documented) return [`status ${res.status} is not documented for ${op.operationId}`];
  return [...bodyProblems(documented, res), ...headerProblems(documented, res)];
}

function bodyProblems(documented: ResponseModel, res: SeenResponse): string[] {
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (documented.content.size === 0)
    return res.body.length > 0 ? [`a ${res.status} body, where the spec documents none`] : [];
  if (!documented.content.has(type))
    return [
      `content type "${type}" is not documented for ${res.status} (${[...documented.content.keys()].join(", ")})`,
    ];
  const check = documented.content.get(type);
  if (!check) return [];
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return [`a ${type} body that is not JSON`];
  }
  if (check(body)) return [];
  const errors = (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`).join("; ");
  return [`the ${res.status} body does not match its schema: ${errors}`];
}

function headerProblems(documented: ResponseModel, res: SeenResponse): string[] {
  const problems: string[] = [];
  for (const header of documented.headers) {
    const value = res.headers.get(header.name);
    if (value === null) {
      if (header.required) problems.push(`header ${header.name} is missing`);
    } else if (!header.check(value)) {
      problems.push(`header ${header.name}: ${JSON.stringify(value)} breaks its schema`);
    }
  }
  return problems;
}

/** A JSON pointer segment (RFC 6901), percent-encoded for use in a URI fragment. */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1"));
}

function refOf(node: unknown): string | undefined {
  return (node as { $ref?: string } | undefined)?.$ref;
}

/** Points a schema's local refs at the spec registered with ajv. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${SPEC_ID}#/components/`)) as Json;
}
