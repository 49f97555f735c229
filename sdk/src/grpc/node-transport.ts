import type { Transport } from "@connectrpc/connect";

type ConnectNode = typeof import("@connectrpc/connect-node");

/**
 * gRPC over HTTP/2 with @connectrpc/connect-node, loaded on the first call: browser bundles of the
 * SDK never pull in Node's http2 (browsers pass their own `transport` instead).
 */
export function nodeGrpcTransport(baseUrl: string): Transport {
  let loaded: Promise<Transport> | undefined;
  const load = (): Promise<Transport> => {
    // Through a variable, so that bundlers do not resolve the Node-only package.
    const specifier = "@connectrpc/connect-node";
    loaded ??= (import(/* @vite-ignore */ specifier) as Promise<ConnectNode>).then((m) =>
      m.createGrpcTransport({ baseUrl }),
    );
    return loaded;
  };
  return {
    unary: async (...args) => (await load()).unary(...args),
    stream: async (...args) => (await load()).stream(...args),
  };
}
