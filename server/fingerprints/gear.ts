import { createHash } from "node:crypto";

/**
 * The gear table of the rolling hash: entry i is the first four bytes, read as a big-endian
 * signed 32-bit integer, of SHA-256 of the single byte i. Derived rather than listed so anyone can
 * rebuild it (docs/fingerprint.md); int32 so the hot loop stays in small-integer arithmetic.
 */
export const GEAR: Int32Array = Int32Array.from({ length: 256 }, (_, i) =>
  createHash("sha256").update(Uint8Array.of(i)).digest().readInt32BE(0),
);

/**
 * Masks over the gear hash h = (h << 1) + GEAR[byte] (mod 2^32). Bit k of h depends on the last
 * k + 1 bytes only, so the masks test the top bits: every decision then depends on a 32-byte
 * window. Each mask contains the previous one, so a chunk cut is always a piece boundary.
 */
export const PIECE_MASK = 0xfc000000 | 0; // top 6 bits: a piece ends on average every 64 bytes
export const CHUNK_MASK_LARGE = 0xffc00000 | 0; // top 10 bits: used once a chunk passes its average size
export const CHUNK_MASK_SMALL = 0xfffc0000 | 0; // top 14 bits: used below the average size
export const SECTION_MASK = 0xffff0000 | 0; // top 16 bits: a chunk cut that also ends a section
