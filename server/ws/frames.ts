import type { ServerMessage, ServerMessageType } from "../../gen/asyncapi/index.js";

type DataOf<T extends ServerMessageType> = Extract<ServerMessage, { type: T }>["data"];

/**
 * One server message as JSON text, members in envelope order. `timestamp` is the send time;
 * `id` is set on replies only (events never carry one).
 */
export function serverFrame<T extends ServerMessageType>(
  type: T,
  data: DataOf<T>,
  timestamp: Date,
  id?: string,
): string {
  const message = { type, ...(id === undefined ? {} : { id }), timestamp: timestamp.toISOString(), data };
  return JSON.stringify(message);
}
