/**
 * What the client needs of a WebSocket: met by browsers' and Node 22's global WebSocket and by the
 * `ws` package (Node 20 has no global WebSocket).
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open", listener: () => void): void;
  /** `message` is set by the `ws` package (e.g. "Unexpected server response: 401"), not by browsers. */
  addEventListener(type: "error", listener: (event: { message?: string } | undefined) => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { code: number; reason: string }) => void): void;
}

/**
 * A WebSocket class. With `sendKeyAs: "header"` (the default outside browsers) it is called as
 * `new WebSocket(url, { headers })`, which the `ws` package and undici's global WebSocket (Node
 * 22) accept; browsers' take only subprotocols there and get the key in the query instead.
 */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** The open state of every WebSocket implementation (the WHATWG `OPEN`). */
export const OPEN = 1;
