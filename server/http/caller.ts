import type { IncomingMessage } from "node:http";
import type { PrincipalRequest } from "../auth/principal.js";

/**
 * What an HTTP request (a REST call or the WebSocket upgrade) says about its caller: the key
 * headers, the forwarding headers and the peer address. The auth domain decides from these who it
 * is (a key, or the client address, trusting the forwarding headers only from TRUSTED_PROXIES).
 * `apiKey` stands in for a missing X-API-Key: browsers cannot set headers on a WebSocket upgrade,
 * so it sends the key as a query parameter.
 */
export function callerOf(req: IncomingMessage, apiKey?: string): PrincipalRequest {
  return {
    authorization: header(req, "authorization"),
    apiKey: header(req, "x-api-key") ?? apiKey,
    forwardedFor: header(req, "x-forwarded-for"),
    realIp: header(req, "x-real-ip"),
    peerAddress: req.socket.remoteAddress,
  };
}

/** One header's value; a header sent several times reads as its values joined with commas. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** The challenge every 401 carries (RFC 9110 section 11.6.1; `error` per RFC 6750 section 3.1). */
export function bearerChallenge(reason: string | undefined): string {
  return reason === "invalid_api_key"
    ? 'Bearer realm="stampd", error="invalid_token"'
    : 'Bearer realm="stampd"';
}
