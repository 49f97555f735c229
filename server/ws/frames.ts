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

const TYPE_START = '{"type":"'.length;

/**
 * The type of a frame made by serverFrame, read from its first member without parsing the rest
 * (per-type message metrics on every send).
 */
export function frameType(frame: string | Buffer): string {
  const head = typeof frame === "string" ? frame.slice(0, 64) : frame.toString("utf8", 0, 64);
  const end = head.indexOf('"', TYPE_START);
  return end > TYPE_START ? head.slice(TYPE_START, end) : "unknown";
}
