import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { loadSpec, type OperationId } from "../../contract/openapi.js";
import type { FieldError } from "../../errors.js";
import { invalid } from "../../errors.js";
import { normalizeBooleans } from "../form-boolean.js";

type Json = Record<string, unknown>;
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;

const MULTIPART = "multipart/form-data";
const SPEC_ID = "stampd:openapi";

// ajv-formats is CommonJS; depending on the loader the default import is the plugin or its module.
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;

/** Where a form value came from, for the JSON pointer of a validation error. */
export type FieldSource = "body" | "query";

/**
 * The multipart form of one operation, validated against the schema the spec declares for it, so
 * form fields obey exactly the rules that express-openapi-validator applies to JSON bodies.
 */
export interface FormSchema {
  /** The names of the form's text fields (its properties other than `file`). */
  readonly fields: ReadonlySet<string>;
  /**
   * Throws `validation_failed` unless the text values, together with the presence of a file,
   * satisfy the schema. Text is coerced as the validator coerces query strings ("5" is an integer);
   * a boolean field's spellings (`True`, `1`, `yes`, `on`, …) are rewritten in `values` first.
   * `partial`: the form is still arriving, so a required field not seen yet is no fault.
   */
  check(
    values: Record<string, string>,
    hasFile: boolean,
    sourceOf: (name: string) => FieldSource,
    partial?: boolean,
  ): void;
}

const forms = new Map<OperationId, FormSchema | null>();
let ajv: Ajv2020 | undefined;

/** The multipart form schema of an operation, or null when it takes no multipart body. */
export function formSchema(operationId: OperationId): FormSchema | null {
  if (!forms.has(operationId)) forms.set(operationId, compileForm(operationId));
  return forms.get(operationId)!;
}

function multipartMedia(op: unknown): Json | undefined {
  const body = (op as { requestBody?: { content?: Record<string, Json> } } | undefined)?.requestBody;
  return body?.content?.[MULTIPART];
}

function compileForm(operationId: OperationId): FormSchema | null {
  const media = multipartMedia(findOperation(operationId));
  if (!media?.schema) return null;
  const schema = resolveRef(media.schema as Json);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const fields = new Set(Object.keys(properties).filter((name) => name !== "file"));
  const booleans = [...fields].filter((name) => resolveRef(properties[name]!).type === "boolean");
  const validate = formAjv().compile(rebase(media.schema) as Json);
  return {
    fields,
    check(values, hasFile, sourceOf, partial = false) {
      normalizeBooleans(values, booleans);
      // The file is not text: a placeholder stands for it so `required: [file]` still applies.
      const data: Record<string, unknown> = { ...values, ...(hasFile ? { file: "" } : {}) };
      if (validate(data)) return;
      const errors = (validate.errors ?? []).filter((e) => !partial || e.keyword !== "required");
      if (errors.length > 0) throw invalid("request validation failed", fieldErrors(errors, sourceOf));
    },
  };
}

function findOperation(operationId: OperationId): unknown {
  for (const item of Object.values(loadSpec().paths)) {
    for (const op of Object.values(item)) if (op?.operationId === operationId) return op;
  }
  return undefined;
}

function formAjv(): Ajv2020 {
  if (ajv) return ajv;
  // strict off: the spec carries OpenAPI keywords (example, discriminator) ajv does not know.
  ajv = new Ajv2020({ strict: false, coerceTypes: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addFormat("binary", true);
  ajv.addSchema({ $id: SPEC_ID, components: loadSpec().components });
  return ajv;
}

/** Points the spec's local '#/components/...' refs at the registered document. */
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

function resolveRef(schema: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  return ref
    .replace(/^#\//, "")
    .split("/")
    .reduce<Json>((at, part) => at[part] as Json, loadSpec() as Json);
}

function fieldErrors(errors: ErrorObject[], sourceOf: (name: string) => FieldSource): FieldError[] {
  return errors.map((e) => {
    const name = fieldName(e);
    return { path: `/${sourceOf(name)}/${name}`, message: e.message ?? "invalid" };
  });
}

function fieldName(e: ErrorObject): string {
  if (e.keyword === "required") return String(e.params.missingProperty);
  if (e.keyword === "additionalProperties") return String(e.params.additionalProperty);
  return e.instancePath.split("/")[1] ?? "";
}
