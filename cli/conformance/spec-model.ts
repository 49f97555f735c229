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

interface HeaderRule {
  name: string;
  required: boolean;
  check: ValidateFunction;
}

interface ResponseRule {
  headers: HeaderRule[];
  /** Content type -> body validator (null where the spec types the body as text or binary). */
  content: Map<string, ValidateFunction | null>;
}

export interface OperationRule {
  operationId: OperationId;
  method: Method;
  path: string;
  /** No `{}` alternative in `security`: the operation needs a key. */
  needsKey: boolean;
  /** The path as a regular expression, parameters matching one segment. */
  pattern: RegExp;
  responses: Map<string, ResponseRule>;
}

/** One HTTP answer as the kit saw it on the wire. */
export interface SeenResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * specs/openapi.yaml as the conformance kit reads it at run time: each operation's documented
 * statuses, headers and body schemas, compiled with ajv (JSON Schema 2020-12, as OpenAPI 3.1 is).
 * Every answer the kit receives is judged by these, whatever check caused it.
 */
export class SpecModel {
  readonly operations: OperationRule[];
  private readonly spec = loadSpec() as unknown as Json;
  private readonly ajv = newAjv(this.spec, false);
  /** Header values are text: "60" is an integer, as a validator reads them. */
  private readonly coercing = newAjv(this.spec, true);

  constructor() {
    // Literal segments come first (listOperations' order), so /vault/list wins over /vault/{id}.
    this.operations = listOperations().map((op) => this.operation(op.operationId, op.method, op.path));
  }

  /** The operation a request went to, by method and path (below the base URL's own path). */
  match(method: string, path: string): OperationRule | undefined {
    const lower = method.toLowerCase();
    return this.operations.find((o) => o.method === lower && o.pattern.test(path));
  }

  /** What is wrong with `res` as an answer of `op` (empty: nothing). */
  problems(op: OperationRule, res: SeenResponse): string[] {
    const rule =
      op.responses.get(String(res.status)) ??
      op.responses.get(`${String(res.status)[0]}XX`) ??
      op.responses.get("default");
    if (!rule) return [`status ${res.status} is not documented for ${op.operationId}`];
    return [...bodyProblems(rule, res), ...headerProblems(rule, res)];
  }

  private operation(operationId: OperationId, method: Method, path: string): OperationRule {
    const pointer = `#/paths/${pointerSegment(path)}/${method}`;
    const op = this.resolve(this.at(pointer));
    const security = (op.security ?? this.spec.security ?? []) as Json[];
    const literal = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
    const pattern = new RegExp(`^${literal.join("[^/]+")}$`);
    const responses = new Map(
      Object.entries(op.responses as Record<string, Json>).map(([status, r]) => [
        status,
        this.response(r, refOf(r) ?? `${pointer}/responses/${status}`),
      ]),
    );
    return {
      operationId,
      method,
      path,
      needsKey: !security.some((s) => Object.keys(s).length === 0),
      pattern,
      responses,
    };
  }

  private response(node: Json, pointer: string): ResponseRule {
    const r = this.resolve(node);
    const headers = Object.entries((r.headers ?? {}) as Record<string, Json>).map(([name, h]) => {
      const header = this.resolve(h);
      return {
        name,
        required: header.required === true,
        check: this.coercing.compile(rebase(header.schema as Json)),
      };
    });
    const content = new Map<string, ValidateFunction | null>();
    for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
      const typed = type.includes("json") && media.schema !== undefined;
      const ref = `${SPEC_ID}${pointer}/content/${pointerSegment(type)}/schema`;
      content.set(type, typed ? this.ajv.compile({ $ref: ref }) : null);
    }
    return { headers, content };
  }

  private resolve(node: Json): Json {
    let at = node;
    while (typeof at?.$ref === "string") at = this.at(at.$ref as string);
    return at;
  }

  private at(pointer: string): Json {
    return pointer
      .slice(2)
      .split("/")
      .map((part) => decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<Json>((node, part) => node[part] as Json, this.spec);
  }
}

function bodyProblems(rule: ResponseRule, res: SeenResponse): string[] {
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (rule.content.size === 0)
    return res.body.length > 0 ? [`a ${res.status} body, where the spec documents none`] : [];
  if (!rule.content.has(type))
    return [
      `content type "${type}" is not documented for ${res.status} (${[...rule.content.keys()].join(", ")})`,
    ];
  const check = rule.content.get(type);
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

function headerProblems(rule: ResponseRule, res: SeenResponse): string[] {
  const problems: string[] = [];
  for (const header of rule.headers) {
    const value = res.headers.get(header.name);
    if (value === null) {
      if (header.required) problems.push(`header ${header.name} is missing`);
    } else if (!header.check(value)) {
      problems.push(`header ${header.name}: ${JSON.stringify(value)} breaks its schema`);
    }
  }
  return problems;
}

function newAjv(spec: Json, coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
  addFormats(ajv);
  // `binary` marks raw bodies; there is nothing to check in their text.
  ajv.addFormat("binary", true);
  ajv.addSchema(spec, SPEC_ID);
  return ajv;
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
