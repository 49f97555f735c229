import { listOperations, loadSpec, type OperationId } from "../../server/contract/openapi.js";

/** One error answer the spec documents for an operation, with the body of its example. */
export interface DocumentedError {
  status: number;
  /** The example's name when the response names several (Prism's `Prefer: example=`). */
  example?: string;
  body: unknown;
}

type Json = Record<string, unknown>;
interface MediaObject {
  example?: unknown;
  examples?: Record<string, Json>;
}

/** Every error status and named example specs/openapi.yaml documents for `operationId`. */
export function documentedErrors(operationId: OperationId): DocumentedError[] {
  const op = listOperations().find((o) => o.operationId === operationId)!;
  const spec = loadSpec() as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  };
  const responses = spec.paths[op.path]![op.method]!.responses;
  return Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([status, response]) => examplesOf(Number(status), resolve(response)));
}

function examplesOf(status: number, response: Json): DocumentedError[] {
  const content = (response.content ?? {}) as Record<string, MediaObject>;
  const media = content["application/json"] ?? Object.values(content)[0] ?? {};
  if (!media.examples) return [{ status, body: media.example }];
  return Object.entries(media.examples).map(([name, ex]) => ({
    status,
    example: name,
    body: resolve(ex).value,
  }));
}

/** Follows a local `$ref` such as `#/components/responses/NotFound`. */
function resolve(node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  return ref
    .slice(2)
    .split("/")
    .reduce<Json>((at, part) => at[part] as Json, loadSpec() as Json);
}
