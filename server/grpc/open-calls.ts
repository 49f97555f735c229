import type http from "node:http";
import type http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import { ClientAddresses } from "../auth/client-address.js";
import type { Config } from "../config.js";

export type OpenCallSettings = Pick<
  Config,
  "GRPC_MAX_CALLS_PER_CLIENT" | "TRUSTED_PROXIES" | "IPV6_PREFIX_LENGTH"
>;

/**
 * Counts the calls each client address has open, over all its connections to the gRPC listener
 * and its Connect and gRPC-Web calls on the REST listener (grpc/http1-handler.ts), and refuses one more than `GRPC_MAX_CALLS_PER_CLIENT`. Each open call holds some 50 KiB
 * (HTTP/2 stream, Connect's handler) whether or not it sends anything: one address held 10,000
 * silent StreamStamps calls over 100 connections, RSS 98 -> 619 MB (issue #35 item 4). The client
 * is found as the rate limiter finds it (forwarding metadata believed from trusted proxies only),
 * so several keys from one address share the allowance, as with connections and large bodies.
 */
export class OpenCalls {
  private readonly addresses: ClientAddresses;
  private readonly open = new Map<string, number>();

  constructor(private readonly settings: OpenCallSettings) {
    this.addresses = new ClientAddresses(settings.TRUSTED_PROXIES, settings.IPV6_PREFIX_LENGTH);
  }

  /**
   * Counts the call until its response closes, or returns the RESOURCE_EXHAUSTED it is to end
   * with when its client has as many open as allowed.
   */
  enter(
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ): ConnectError | undefined {
    const client = this.addresses.clientKey({
      forwardedFor: header(req, "x-forwarded-for"),
      realIp: header(req, "x-real-ip"),
      peerAddress: req.socket.remoteAddress,
    });
    const count = this.open.get(client) ?? 0;
    const most = this.settings.GRPC_MAX_CALLS_PER_CLIENT;
    if (count >= most) {
      return new ConnectError(
        `too many calls open from this client: at most ${most} at once (GRPC_MAX_CALLS_PER_CLIENT); end one before starting another`,
        Code.ResourceExhausted,
      );
    }
    this.open.set(client, count + 1);
    res.once("close", () => {
      const left = this.open.get(client)! - 1;
      if (left === 0) this.open.delete(client);
      else this.open.set(client, left);
    });
    return undefined;
  }
}

function header(req: http.IncomingMessage | http2.Http2ServerRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}
