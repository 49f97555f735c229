import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { operations } from "../../gen/openapi/types.js";

// The REST contract as data, read by the REST transport (routing, docs, forms), the CLI's
// conformance kit and the tests: it sits beside the transports, not in one of them.

export type OperationId = keyof operations;

export const specPath = new URL("../../specs/openapi.yaml", import.meta.url);

const methods = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
export type Method = (typeof methods)[number];

export interface Operation {
  operationId: OperationId;
  method: Method;
  /** The path as the spec writes it, e.g. /stamps/{stamp_id}. */
  path: string;
  /** The same path in express syntax, e.g. /stamps/:stamp_id. */
  expressPath: string;
}

interface OpenApiDocument {
  paths: Record<string, Partial<Record<Method, { operationId?: string }>>>;
  [key: string]: unknown;
}

let cached: OpenApiDocument | undefined;

/** The parsed specs/openapi.yaml; callers must not mutate it. */
export function loadSpec(): OpenApiDocument {
  cached ??= parse(readFileSync(specPath, "utf8")) as OpenApiDocument;
  return cached;
}

/** Every operation in the spec, literal segments ordered before parameters so /vault/list wins over /vault/{id}. */
export function listOperations(spec: OpenApiDocument = loadSpec()): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of methods) {
      const op = item[method];
      if (!op) continue;
      if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const expressPath = path.replace(/\{([^}]+)\}/g, ":$1");
      ops.push({ operationId: op.operationId as OperationId, method, path, expressPath });
    }
  }
  return ops.sort((a, b) => comparePaths(a.path, b.path));
}

function comparePaths(a: string, b: string): number {
  const sa = a.split("/");
  const sb = b.split("/");
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith("{");
    const pb = sb[i]!.startsWith("{");
    if (pa !== pb) return pa ? 1 : -1;
  }
  // Code-unit order, not localeCompare: the paths are ASCII, and ICU's collator would stay resident.
  return sa.length - sb.length || (a < b ? -1 : a > b ? 1 : 0);
}
