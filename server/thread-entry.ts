/**
 * Set by scripts/build-server.mjs (esbuild `define`): the URL of dist/, where the bundle's thread
 * entry points are. Undefined when the source runs under tsx or vitest.
 */
declare const STAMPD_DIST: string | undefined;

/**
 * A worker thread's entry: the compiled module `compiled` (its path under dist/) beside the bundle,
 * or the TypeScript `source` imported through tsx's API (neither vitest's transform nor a
 * `--import tsx` in the thread's node options makes a worker load TypeScript on Node 20).
 */
export function threadEntry(compiled: string, source: URL): { entry: string | URL; eval: boolean } {
  if (typeof STAMPD_DIST !== "undefined") return { entry: new URL(compiled, STAMPD_DIST), eval: false };
  const tsx = import.meta.resolve("tsx/esm/api");
  const href = JSON.stringify(source.href);
  const entry = `import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${href}, ${href}))`;
  return { entry, eval: true };
}
