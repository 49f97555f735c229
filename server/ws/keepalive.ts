import type { WsConnection } from "./connection.js";

/**
 * One timer for all connections (not one each): every interval, a connection that has not
 * answered the previous ping frame is dropped and the others are pinged again. Browsers answer
 * ping frames on their own, so this needs nothing from clients.
 */
export function startKeepAlive(connections: Iterable<WsConnection>, intervalMs: number): () => void {
  const timer = setInterval(() => {
    for (const conn of connections) conn.checkAlive();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
