import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { listOperations, loadSpec, type Method, type OperationId } from "../../../server/contract/openapi.js";

type Json = Record<string, unknown>;
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;

/** The id under which the whole spec is registered with ajv, so every `$ref` resolves by pointer. */
const SPEC_ID = "stampd-fuzz:openapi";

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
  /** Content type -> body validator (null for bodies the spec types as binary or plain text). */
  content: Map<string, ValidateFunction | null>;
}

export interface OperationModel {
  operationId: OperationId;
  method: Method;
  path: string;
  /** No `{}` alternative in `security`: a key is required. */
  needsKey: boolean;
  params: ParamModel[];
  /** Request body: content type -> schema (refs in place) and its validator. */
  body: Map<string, { schema: Json; check: ValidateFunction }>;
  bodyRequired: boolean;
  responses: Map<string, ResponseModel>;
}

/**
 * specs/openapi.yaml read for the fuzzer: every operation with its parameters, bodies and
 * documented responses, each with an ajv validator compiled from the spec itself (JSON Schema
 * 2020-12, as OpenAPI 3.1 is). The fuzzer's verdicts rest on these, not on the server's own
 * validator, so the two can disagree and the fuzzer notice.
 */
export class SpecModel {
  readonly spec = loadSpec() as unknown as Json;
  readonly operations: OperationModel[];
  /** Plain validation, for bodies and responses. */
  private readonly ajv = this.newAjv(false);
  /** Validation that coerces strings the way query, path and header values are read. */
  private readonly coercing = this.newAjv(true);

  constructor() {
    this.operations = listOperations().map((op) => this.operation(op.operationId, op.method, op.path));
  }

  operation(operationId: OperationId): OperationModel;
  operation(operationId: OperationId, method: Method, path: string): OperationModel;
  operation(operationId: OperationId, method?: Method, path?: string): OperationModel {
    if (!method || !path) return this.operations.find((o) => o.operationId === operationId)!;
    const pointer = `#/paths/${pointerSegment(path)}/${method}`;
    const op = this.resolve(this.at(pointer));
    const security = (op.security ?? this.spec.security ?? []) as Json[];
    const body = this.resolve((op.requestBody as Json | undefined) ?? {});
    const bodyPointer = refOf(op.requestBody) ?? `${pointer}/requestBody`;
    return {
      operationId,
      method,
      path,
      needsKey: !security.some((s) => Object.keys(s).length === 0),
      params: ((op.parameters ?? []) as Json[]).map((p) => this.param(p)),
      body: new Map(
        Object.entries((body.content ?? {}) as Record<string, Json>).map(([type, media]) => [
          type,
          {
            schema: media.schema as Json,
            check: this.ajv.compile({
              $ref: `${SPEC_ID}${bodyPointer}/content/${pointerSegment(type)}/schema`,
            }),
          },
        ]),
      ),
      bodyRequired: body.required === true,
      responses: new Map(
        Object.entries(op.responses as Record<string, Json>).map(([status, r]) => [
          status,
          this.response(status, r, `${pointer}/responses/${status}`),
        ]),
      ),
    };
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
    const base = refOf(node) ?? pointer;
    const headers = Object.entries((r.headers ?? {}) as Record<string, Json>).map(([name, h]) => {
      const header = this.resolve(h);
      return { name, required: header.required === true, check: this.compile(header.schema as Json, true) };
    });
    const content = new Map<string, ValidateFunction | null>();
    for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
      const schema = media.schema as Json | undefined;
      const typed = type.includes("json") && schema !== undefined;
      content.set(
        type,
        typed ? this.ajv.compile({ $ref: `${SPEC_ID}${base}/content/${pointerSegment(type)}/schema` }) : null,
      );
    }
    return { status, headers, content };
  }

  private at(pointer: string): Json {
    return pointer
      .slice(2)
      .split("/")
      .map((part) => decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<Json>((node, part) => node[part] as Json, this.spec);
  }

  private newAjv(coerceTypes: boolean): Ajv2020 {
    const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes, validateFormats: true });
    addFormats(ajv);
    // `binary` marks file parts and raw bodies; there is nothing to check in their text.
    ajv.addFormat("binary", true);
    ajv.addSchema(this.spec, SPEC_ID);
    return ajv;
  }
}

/** A JSON pointer segment (RFC 6901). */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1"));
}

function refOf(node: unknown): string | undefined {
  return (node as { $ref?: string } | undefined)?.$ref;
}

/** Points the schema's local refs at the spec registered with ajv. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${SPEC_ID}#/components/`)) as Json;
}
