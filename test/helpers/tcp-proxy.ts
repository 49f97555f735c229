import { once } from "node:events";
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** Where a proxy forwards to. */
export interface ProxyTarget {
  host: string;
  port: number;
}

/**
 * A TCP proxy a fault test puts between the service and a real dependency (PostgreSQL, Redis), to
 * make the faults a failover, a partition or a frozen host make, as our side of the socket sees them.
 *
 * @example
 * const proxy = await startTcpProxy({ target: { host: "127.0.0.1", port: 6379 } });
 * // point the service at 127.0.0.1:proxy.port, then:
 * proxy.cut(); // every open connection reset, new ones refused (a restart, a failover)
 * await proxy.restore(); // connections are accepted and forwarded again
 * proxy.stall(); // sockets stay open, nothing flows either way (a frozen host, a dropped route)
 * await proxy.restore(); // what was held is forwarded, as after SIGCONT
 * await proxy.close();
 */
export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1), the same for its whole life. */
  readonly port: number;
  /** Resets every open connection (both sides) and refuses new ones until restore. */
  cut(): void;
  /**
   * Keeps every socket open but forwards nothing, either way; new connections are accepted and
   * held. Nothing is dropped: what was sent meanwhile waits in the sockets' buffers.
   */
  stall(): void;
  /** Ends a cut or a stall: listens again, and forwards what a stall held. */
  restore(): Promise<void>;
  /** Connections opened through the proxy that are still open (both sides). */
  readonly openConnections: number;
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

type Mode = "forward" | "cut" | "stall";

/** One client connection and its upstream, once it has one. */
interface Pair {
  client: Socket;
  upstream?: Socket;
}

export async function startTcpProxy(options: { target: ProxyTarget }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: Mode = "forward";

  const connectUpstream = (pair: Pair): void => {
    const upstream = createConnection(options.target);
    pair.upstream = upstream;
    const end = () => drop(pair);
    upstream.on("error", end).on("close", end);
    link(pair);
  };

  // Piped both ways; a stall unpipes and pauses, since a pipe resumes its source on 'drain'.
  const link = ({ client, upstream }: Pair): void => {
    if (!upstream) return;
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const drop = (pair: Pair): void => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on("error", () => drop(pair)).on("close", () => drop(pair));
    // A connection accepted during a stall waits, unanswered, as one to a frozen host does.
    if (mode === "forward") connectUpstream(pair);
  });
  const port = await listen(server, 0);

  const proxy: TcpProxy = {
    port,
    cut() {
      mode = "cut";
      // Closing the listener makes new connections fail with ECONNREFUSED, as a stopped server's port.
      server.close();
      for (const pair of pairs) {
        // RST rather than FIN: what a crashed or failed-over peer's connections look like.
        pair.client.resetAndDestroy();
        pair.upstream?.resetAndDestroy();
        pairs.delete(pair);
      }
    },
    stall() {
      mode = "stall";
      for (const { client, upstream } of pairs) {
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    async restore() {
      const stalled = mode === "stall";
      mode = "forward";
      if (!server.listening) await listen(server, port);
      // Only a stall left pairs unpiped: piping a forwarding pair again would send its data twice.
      if (!stalled) return;
      for (const pair of pairs) {
        if (pair.upstream) link(pair);
        else connectUpstream(pair);
      }
    },
    get openConnections() {
      return pairs.size;
    },
    async close() {
      for (const pair of pairs) drop(pair);
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}

async function listen(server: Server, port: number): Promise<number> {
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as { port: number }).port;
}
