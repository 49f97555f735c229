/**
 * Request cost by path prefix (seed 8.2, as decided in specs/openapi.yaml info.description): the
 * seed's `/fingerprints` and `/identities` are the singular paths stampd serves.
 */
export const weights: Readonly<Record<string, number>> = {
  "/stamps": 2.0,
  "/fingerprint": 1.5,
  "/verify": 1.0,
  "/identity": 1.0,
  "/vault": 1.0,
  "/explorer": 0.5,
  "/presets": 0.1,
  "/health": 0.1,
};

export const DEFAULT_WEIGHT = 1.0;

/** Never limited and given no rate-limit headers (seed 8.5), with everything below them (assets). */
export const exemptPaths: readonly string[] = [
  "/health",
  "/ready",
  "/metrics",
  "/docs",
  "/redoc",
  "/openapi.json",
];

const byLength = Object.keys(weights).sort((a, b) => b.length - a.length);

/** The cost of a request to `path`: the longest listed prefix on whole segments, else 1.0. */
export function weightFor(path: string): number {
  const p = normalise(path);
  const prefix = byLength.find((candidate) => under(p, candidate));
  return prefix ? weights[prefix]! : DEFAULT_WEIGHT;
}

export function isExempt(path: string): boolean {
  const p = normalise(path);
  return exemptPaths.some((prefix) => under(p, prefix));
}

// Express routes case-insensitively, so /STAMPS reaches the stamps handler and must cost the same.
function normalise(path: string): string {
  return path.toLowerCase();
}

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}
