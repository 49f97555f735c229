const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** The 128 bits of a ULID (the part after an id's prefix) as the content of a positive DER INTEGER. */
export function ulidBytes(ulid: string): Uint8Array {
  let value = 0n;
  for (const char of ulid) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) throw new RangeError(`not a ULID: ${ulid}`);
    value = value * 32n + BigInt(digit);
  }
  // DER INTEGER content: minimal, with a leading zero only where the top bit would make it negative.
  const bytes: number[] = [];
  for (; value > 0n; value >>= 8n) bytes.unshift(Number(value & 0xffn));
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes.unshift(0);
  return Uint8Array.from(bytes);
}
