// OpenTimestamps serialization written by hand, as a calendar answers: LEB128 lengths, 0x00 + an
// 8-byte tag for attestations, 0xff before every item of a fork but the last.
export const varuint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...varuint(n >>> 7)]);
export const varbytes = (bytes: Uint8Array | number[]) => [...varuint(bytes.length), ...bytes];
const PENDING = [0x83, 0xdf, 0xe3, 0x0d, 0x2e, 0xf9, 0x0c, 0x8e];
const BITCOIN = [0x05, 0x88, 0x96, 0x0d, 0x73, 0xd7, 0x19, 0x01];
/** A pending attestation naming the calendar at `uri`. */
export const pending = (uri: string) => [0x00, ...PENDING, ...varbytes(varbytes([...Buffer.from(uri)]))];
/** A Bitcoin block-header attestation of block `height`. */
export const bitcoin = (height: number) => [0x00, ...BITCOIN, ...varbytes(varuint(height))];
