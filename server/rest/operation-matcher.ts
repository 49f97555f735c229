import { listOperations, type Operation } from "../contract/openapi.js";
import { patternOf } from "./route-template.js";

export interface OperationMatch {
  operation: Operation;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

interface Entry {
  operation: Operation;
  pattern: RegExp;
  names: string[];
}

/**
 * Finds the operation of a request as an express 5 router with one route per operation (in
 * listOperations() order) did: the first route whose path matches and that takes the method (HEAD
 * taken by GET), case-insensitively, with an optional trailing slash. A parameter that cannot be
 * percent-decoded throws the router's own 400. require-key.ts decides with it, before any body is
 * read, which operations need a key as that router did (express's own router would walk its routes
 * with closures and objects per route tried); the request is matched to the operation that serves
 * it later, with the generated route table (middleware/request-validation.ts).
 */
export function operationMatcher(
  operations: Operation[] = listOperations(),
): (method: string, path: string) => OperationMatch | undefined {
  const entries: Entry[] = operations.map((operation) => ({
    operation,
    pattern: patternOf(operation.path),
    names: [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
  }));
  return (method, path) => {
    const wanted = method === "HEAD" ? "get" : method.toLowerCase();
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const found = entry.pattern.exec(path);
      if (!found) continue;
      // Decoded before the method is compared, as the router does.
      const params: Record<string, string> = {};
      for (let k = 0; k < entry.names.length; k++) params[entry.names[k]!] = decodeParam(found[k + 1]!);
      if (entry.operation.method === wanted) return { operation: entry.operation, params };
    }
    return undefined;
  };
}

/** router 2's decodeParam: an undecodable value is a 400 naming it. */
function decodeParam(value: string): string {
  if (!value.includes("%")) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      err.message = `Failed to decode param '${value}'`;
      Object.assign(err, { status: 400, statusCode: 400 });
    }
    throw err;
  }
}
