import type { OutsideTimestamp, StampLogEntry } from "../../sigstore/stamp-log-repository.js";
import { bytesOf, dateOf, type Timestamp } from "./values.js";

/**
 * Rows of the stamp log (docs/sigstore.md) on both engines: an entry read with its outside TSA's
 * token, if one was kept (`stamp_log_outside_timestamps`, migration 0017).
 */

/** The SELECT of a stamp's entry with its outside token's columns, null when it has none. */
export const entryWithOutsideTimestamp = `SELECT e.idx, e.body, o.response, o.gen_time FROM stamp_log_entries e
  LEFT JOIN stamp_log_outside_timestamps o ON o.stamp_id = e.stamp_id WHERE e.stamp_id = `;

export interface OutsideTimestampRow {
  response: Buffer;
  gen_time: Timestamp;
}

export interface StampLogEntryRow {
  idx: number;
  body: Buffer;
  response: Buffer | null;
  gen_time: Timestamp | null;
}

export const outsideTimestampOf = (row: OutsideTimestampRow): OutsideTimestamp => ({
  response: bytesOf(row.response),
  genTime: dateOf(row.gen_time),
});

export function stampLogEntryOf({ idx, body, response, gen_time }: StampLogEntryRow): StampLogEntry {
  const outside = response && gen_time !== null ? outsideTimestampOf({ response, gen_time }) : undefined;
  return { index: idx, body: bytesOf(body), ...(outside && { outsideTimestamp: outside }) };
}
