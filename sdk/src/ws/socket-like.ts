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
 * A WebSocket class. The third argument is passed only with `sendKeyAs: "header"`, as the `ws`
 * package's options (`{headers}`); browsers take no headers.
 */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
  options?: { headers: Record<string, string> },
) => WebSocketLike;

/** The open state of every WebSocket implementation (the WHATWG `OPEN`). */
export const OPEN = 1;
