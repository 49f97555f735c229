import { AuthenticationError, PermissionDeniedError } from "../internal/errors.js";
import { WsEndpointError } from "./errors.js";

/**
 * How the `ws` package reports an upgrade answered with an HTTP status instead of 101. Browsers
 * and Node 22's global WebSocket report no status: there a refusal surfaces as the subscribe or
 * request timeout instead.
 */
const UNEXPECTED_RESPONSE = /Unexpected server response: (\d{3})/;

/**
 * The error that ends the client when the server refused the upgrade for good, or undefined when
 * trying again may help (429 rate limited, 5xx overloaded or restarting, or no status known).
 * `url` is the endpoint without the key, for the message.
 */
export function upgradeRefusal(message: string | undefined, url: string): Error | undefined {
  const match = UNEXPECTED_RESPONSE.exec(message ?? "");
  if (!match) return undefined;
  const status = Number(match[1]);
  if (status === 429 || status >= 500) return undefined;
  if (status === 401)
    return new AuthenticationError(status, undefined, `401 ${url} refused the API key (WebSocket upgrade)`);
  if (status === 403)
    return new PermissionDeniedError(
      status,
      undefined,
      `403 ${url} refused the connection (Origin not allowed)`,
    );
  return new WsEndpointError(status, url);
}
