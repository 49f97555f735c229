import type { ClientMessage } from "../../gen/asyncapi/index.js";
import type { AppContext } from "../context.js";
import type { Reply, WsConnection } from "./connection.js";
import { serverFrame } from "./frames.js";
import { parseFrame } from "./parse.js";
import type { StampRequests } from "./stamp-requests.js";
import type { Subscriptions } from "./subscriptions.js";
import { toWsError, WsErrorReply } from "./ws-error.js";

/** Turns one text frame into its one reply; never throws. */
export type RequestHandler = (conn: WsConnection, text: string) => Promise<Reply>;

export function createRequestHandler(
  ctx: AppContext,
  subscriptions: Subscriptions,
  stamps: StampRequests,
): RequestHandler {
  const now = () => ctx.clock.now();

  async function dispatch(conn: WsConnection, message: ClientMessage): Promise<Reply> {
    const { id } = message;
    switch (message.type) {
      case "ping":
        return { frame: serverFrame("pong", message.data ?? {}, now(), id) };
      case "subscribe":
        return { frame: serverFrame("subscribed", subscriptions.subscribe(conn, message.data), now(), id) };
      case "unsubscribe":
        return {
          frame: serverFrame("unsubscribed", subscriptions.unsubscribe(conn, message.data), now(), id),
        };
      case "stamp": {
        const created = await stamps.stamp(conn.principal, message.data);
        return { frame: serverFrame("stamp_created", created, now(), id), echoOf: created.id };
      }
      case "verify":
        return {
          frame: serverFrame(
            "verification_result",
            await stamps.verify(conn.principal, message.data),
            now(),
            id,
          ),
        };
    }
  }

  return async (conn, text) => {
    const parsed = parseFrame(text);
    ctx.metrics.wsReceived.inc({ type: parsed.ok ? parsed.message.type : "invalid" });
    if (!parsed.ok) return { frame: serverFrame("error", parsed.error.toData(), now(), parsed.id) };
    try {
      return await dispatch(conn, parsed.message);
    } catch (err) {
      const known = toWsError(err);
      if (!known) ctx.logger.error({ err, type: parsed.message.type }, "WebSocket request failed");
      const error = known ?? new WsErrorReply("internal", "internal error; the request may be retried");
      return { frame: serverFrame("error", error.toData(), now(), parsed.message.id) };
    }
  };
}
