import type { Server, Socket } from "node:net";
import { ClientAddresses } from "../auth/client-address.js";
import type { Config } from "../config.js";

export type ConnectionCapSettings = Pick<
  Config,
  "MAX_CONNECTIONS_PER_CLIENT" | "TRUSTED_PROXIES" | "IPV6_PREFIX_LENGTH"
>;

/**
 * Closes, as soon as it is accepted, a connection that would give one client address more than
 * `MAX_CONNECTIONS_PER_CLIENT` open connections on `server`, so that one client holding slow
 * sockets cannot take the whole of `MAX_CONNECTIONS` from everyone else. The client is the peer's
 * address (an IPv6 peer: its `IPV6_PREFIX_LENGTH` network, as the rate limiter counts it);
 * forwarding headers are not read yet when a connection opens. A trusted proxy's connections
 * carry many clients and are left to the global cap.
 */
export function capConnectionsPerClient(server: Server, settings: ConnectionCapSettings): void {
  const addresses = new ClientAddresses(settings.TRUSTED_PROXIES, settings.IPV6_PREFIX_LENGTH);
  const open = new Map<string, number>();
  // Registered after the HTTP server's own listener, which must have seen the socket before it
  // is destroyed (destroying it first would leave that listener a socket without a parser).
  server.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (addresses.isTrustedPeer(peer)) return;
    const client = addresses.clientKey({ peerAddress: peer });
    const count = open.get(client) ?? 0;
    if (count >= settings.MAX_CONNECTIONS_PER_CLIENT) {
      socket.destroy();
      return;
    }
    open.set(client, count + 1);
    socket.once("close", () => {
      const left = open.get(client)! - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}
