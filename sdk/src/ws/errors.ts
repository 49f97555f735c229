import type { ErrorCode, ErrorData, ValidationIssue } from "../../../gen/asyncapi/index.js";
import { StampdError } from "../internal/errors.js";

/** The server answered a WebSocket request with an `error` message. */
export class WsRequestError extends StampdError {
  override name = "WsRequestError";
  readonly code: ErrorCode;
  /** Schema violations, with `invalid_message` and `invalid_filter`. */
  readonly errors: ValidationIssue[] | undefined;
  /** Seconds to wait, with `rate_limited`. */
  readonly retryAfter: number | undefined;

  constructor(data: ErrorData) {
    super(`${data.code}: ${data.message}`);
    this.code = data.code;
    this.errors = data.errors;
    this.retryAfter = data.retryAfter;
  }
}

/**
 * The connection closed before the request was answered, or the client was closed. A `stamp`
 * may have been created all the same: it is not sent again, as that could stamp twice.
 */
export class WsConnectionError extends StampdError {
  override name = "WsConnectionError";
}

/** No reply within `requestTimeoutMs`. */
export class WsTimeoutError extends WsConnectionError {
  override name = "WsTimeoutError";
}

/** The client is disconnected and its outgoing queue (`maxQueue`) is full. */
export class WsQueueFullError extends StampdError {
  override name = "WsQueueFullError";
}

/** An `events()` iterator fell more than `maxBufferedEvents` behind; the events after that were not kept. */
export class WsEventOverflowError extends StampdError {
  override name = "WsEventOverflowError";
}

/**
 * The peer answered the WebSocket upgrade with an HTTP status that no stampd `/ws` endpoint sends
 * to a correct client (404 from a wrong path or another HTTP server, such as the Prism mock, which
 * has no WebSocket): reconnecting cannot help, so the client stops.
 */
export class WsEndpointError extends WsConnectionError {
  override name = "WsEndpointError";
  constructor(
    readonly status: number,
    readonly url: string,
  ) {
    super(
      `${url} answered the WebSocket upgrade with HTTP ${status}: it is not a stampd WebSocket endpoint (/ws)`,
    );
  }
}
