/**
 * Shannon entropy of the byte distribution in bits per byte, summed over byte values 0 to 255 in
 * order and rounded to 4 decimals (so the document's bytes do not depend on float noise).
 */
export function entropy(histogram: Float64Array, size: number): number {
  if (size === 0) return 0;
  let bits = 0;
  for (const count of histogram) {
    if (count === 0) continue;
    const p = count / size;
    bits -= p * Math.log2(p);
  }
  return Math.round(bits * 1e4) / 1e4;
}
