import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "../../../gen/openapi/types.js";

/** The openapi-fetch client on the spec's generated `paths`. */
export type HttpClient = Client<paths>;

export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
}

/** An openapi-fetch client that authenticates every request when a key is given. */
export function createHttpClient(options: HttpOptions): HttpClient {
  const http = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: options.headers,
  });
  if (options.apiKey) http.use(bearerAuth(options.apiKey));
  return http;
}

/**
 * Sends the key as `Authorization: Bearer`, the form the server prefers when both are present
 * (specs/openapi.yaml info, Authentication); a request that sets its own Authorization keeps it.
 */
function bearerAuth(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      if (!request.headers.has("authorization")) request.headers.set("authorization", `Bearer ${apiKey}`);
      return request;
    },
  };
}
