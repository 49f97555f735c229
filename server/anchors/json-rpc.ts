/** A JSON-RPC 2.0 error answer (the call reached the node, which refused it). */
export class JsonRpcError extends Error {
  override readonly name = "JsonRpcError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** One JSON-RPC 2.0 call over HTTP POST. */
export async function jsonRpc<T>(
  url: string,
  method: string,
  params: unknown[],
  fetchImpl: typeof fetch = fetch,
): Promise<T> {
  const response = await fetchImpl(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`${method}: ${url} answered HTTP ${response.status}`);
  const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw new JsonRpcError(body.error.code, `${method}: ${body.error.message}`);
  return body.result as T;
}
