import { type Route, routes } from "../../gen/rest/routes.js";

/** The routes of one path template of the spec, in table order. */
interface PathGroup {
  pattern: RegExp;
  routes: Route[];
}

/** What one walk of the route table finds for a request; both answers come from the same walk. */
export interface RequestMatch {
  /**
   * The routes of the first path template the path matches and its undecoded parameter values:
   * what the request check answers from (404 without it, 405 when none takes the method).
   */
  path?: { routes: readonly Route[]; values: string[] };
  /**
   * The operation an express 5 router with one route per operation (in table order) would have
   * run: the first route whose path matches and that takes the method (HEAD taken by GET), with
   * its path parameters percent-decoded. require-key.ts decides with it, as that router did.
   */
  routed?: { route: Route; params: Record<string, string> };
  /** Where that router would have stopped instead: a parameter it could not decode, its 400. */
  undecodable?: Error;
}

const groups = groupByPath(routes);

/**
 * Walks the generated route table (gen/rest/routes.ts) once per request: case-insensitively, with
 * an optional trailing slash, literal segments before parameters. For the usual request the first
 * path that matches takes the method and both answers are one regular expression run. A parameter
 * that cannot be percent-decoded is the express router's own 400, met before the method is
 * compared, as that router did. test/spec/routes.test.ts holds `routed` to such a router.
 */
export function matchRequest(method: string, path: string): RequestMatch {
  const wanted = method === "HEAD" ? "get" : method.toLowerCase();
  const match: RequestMatch = {};
  for (let i = 0; i < groups.length; i++) {
    const group = groups[i]!;
    const found = group.pattern.exec(path);
    if (found === null) continue;
    const values = found.slice(1);
    match.path ??= { routes: group.routes, values };
    // Decoded before the method is compared, as the router does.
    const params = decodeParams(group.routes[0]!, values);
    if (params instanceof Error) {
      match.undecodable = params;
      return match;
    }
    const taking = takingMethod(group.routes, wanted);
    if (taking) {
      match.routed = { route: taking, params };
      return match;
    }
  }
  return match;
}

function takingMethod(candidates: readonly Route[], method: string): Route | undefined {
  for (let i = 0; i < candidates.length; i++) if (candidates[i]!.method === method) return candidates[i];
  return undefined;
}

function groupByPath(all: readonly Route[]): PathGroup[] {
  const byPath = new Map<string, PathGroup>();
  for (const route of all) {
    const group = byPath.get(route.path) ?? { pattern: route.pattern, routes: [] };
    group.routes.push(route);
    byPath.set(route.path, group);
  }
  return [...byPath.values()];
}

/** The parameters as router 2's decodeParam decodes them: an undecodable value is a 400 naming it. */
function decodeParams(route: Route, values: string[]): Record<string, string> | Error {
  const params: Record<string, string> = {};
  for (let k = 0; k < route.params.length; k++) {
    const value = values[k]!;
    if (!value.includes("%")) {
      params[route.params[k]!] = value;
      continue;
    }
    try {
      params[route.params[k]!] = decodeURIComponent(value);
    } catch (err) {
      if (!(err instanceof URIError)) throw err;
      return Object.assign(err, {
        message: `Failed to decode param '${value}'`,
        status: 400,
        statusCode: 400,
      });
    }
  }
  return params;
}
