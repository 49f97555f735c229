/** How many leading bytes decide whether a document is binary (git's FIRST_FEW_BYTES). */
export const SNIFF_BYTES = 8000;

/** Git's test (xdiff `buffer_is_binary`): binary when a NUL byte occurs in the first 8000 bytes. */
export function looksBinary(prefix: Uint8Array): boolean {
  return prefix.subarray(0, SNIFF_BYTES).includes(0);
}
