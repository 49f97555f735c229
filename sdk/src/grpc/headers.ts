import type { Transport } from "@connectrpc/connect";

/**
 * A transport that adds `headers` to every call (gRPC metadata), keeping any the call sets
 * itself. Wrapping the transport, rather than adding an interceptor, also covers a transport
 * the caller built (a browser's gRPC-web transport), whose interceptors are fixed.
 */
export function withHeaders(transport: Transport, headers: Record<string, string>): Transport {
  const merge = (own: HeadersInit | undefined): Headers => {
    const merged = new Headers(own);
    for (const [name, value] of Object.entries(headers)) if (!merged.has(name)) merged.set(name, value);
    return merged;
  };
  return {
    unary: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.unary(method, signal, timeoutMs, merge(header), input, contextValues),
    stream: (method, signal, timeoutMs, header, input, contextValues) =>
      transport.stream(method, signal, timeoutMs, merge(header), input, contextValues),
  };
}
