/**
 * The few ways the two engines hold one value differently, and the conversions both stores share.
 * A row type under rows/ names a column's type by what either driver returns: better-sqlite3 gives
 * timestamps as ISO text, booleans as 0 or 1 and JSON as text; pg gives a Date, a boolean and the
 * parsed value (timestamptz, boolean, json). Everything else (text, integers, bytes) reads alike.
 */

/** A timestamp column: ISO 8601 text in SQLite, a Date in PostgreSQL. */
export type Timestamp = string | Date;

/** A boolean column: 0 or 1 in SQLite, a boolean in PostgreSQL. */
export type Flag = 0 | 1 | boolean;

/** A JSON column holding an object or an array: its text in SQLite, already parsed by pg. */
export type Json<T extends object> = string | T;

export const dateOf = (value: Timestamp): Date => (value instanceof Date ? value : new Date(value));

export const dateOrNull = (value: Timestamp | null): Date | null => (value === null ? null : dateOf(value));

/** The timestamp as ISO text, as SQLite stores it and PostgreSQL's Date prints it. */
export const isoOf = (value: Timestamp): string => (typeof value === "string" ? value : value.toISOString());

export const flagOf = (value: Flag): boolean => value === true || value === 1;

export const jsonOf = <T extends object>(value: Json<T>): T =>
  typeof value === "string" ? (JSON.parse(value) as T) : value;

/** Bytes as the domain holds them, from the Buffer either driver returns. */
export const bytesOf = (value: Buffer): Uint8Array => new Uint8Array(value);

/** Bytes as either driver takes them (pg writes Buffers, not other Uint8Arrays, into array literals). */
export const bufferOf = (value: Uint8Array): Buffer =>
  Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/** How an engine takes the values it stores differently; rows/ builds parameters with one of these. */
export interface Encoding {
  date(value: Date): Timestamp;
  flag(value: boolean): Flag;
}

/** SQLite has no date or boolean type: ISO text (which sorts as time does) and 0 or 1. */
export const sqliteEncoding: Encoding = {
  date: (value) => value.toISOString(),
  flag: (value) => (value ? 1 : 0),
};

/** pg sends a Date as timestamptz and a boolean as boolean. */
export const postgresEncoding: Encoding = {
  date: (value) => value,
  flag: (value) => value,
};

export const encodeDateOrNull = (encoding: Encoding, value: Date | null): Timestamp | null =>
  value === null ? null : encoding.date(value);
