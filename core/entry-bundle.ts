/**
 * Entry bundles of a tiled log (c2sp.org/tlog-tiles): the entries of one level-0 tile position,
 * each as a big-endian uint16 length and that many bytes. stampd's entries are batch roots, so
 * each is `00 20` and the root's 32 bytes; its leaf hash is SHA-256(0x00 ‖ root) (RFC 6962).
 * Portable: no node: imports.
 */

/** An entry bundle that does not parse or does not hold the entries it should. */
export class EntryBundleError extends Error {
  override readonly name = "EntryBundleError";
}

const MAX_ENTRY = 0xffff;

/** The bundle of these entries, in order. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(entries.reduce((n, e) => n + 2 + e.length, 0));
  let at = 0;
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY)
      throw new EntryBundleError(`an entry of ${entry.length} bytes does not fit`);
    out[at] = entry.length >> 8;
    out[at + 1] = entry.length & 0xff;
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

/** The entries of a bundle; throws EntryBundleError when it ends inside an entry. */
export function decodeEntryBundle(bundle: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  for (let at = 0; at < bundle.length; ) {
    if (at + 2 > bundle.length) throw new EntryBundleError("the bundle ends inside an entry's length");
    const length = (bundle[at]! << 8) | bundle[at + 1]!;
    if (at + 2 + length > bundle.length) throw new EntryBundleError("the bundle ends inside an entry");
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
