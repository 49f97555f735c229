#!/usr/bin/env node
// Compiles a server entry point (server/main.ts unless another is named) into plain JavaScript
// under dist/ (gitignored), mirroring its path: server/main.ts -> dist/server/main.js. `npm start`
// runs the result with plain node: under the tsx loader the same server took ~50 MiB more resident
// memory (the loader's hooks run in a worker thread with a V8 isolate of its own, and every module
// keeps its source with an inline source map).
//
// Dependencies stay in node_modules (`packages: "external"`). Our modules become one file plus
// chunks for what is imported lazily (the PostgreSQL store, Redis, the RFC 3161 code), loaded only
// when used.
// Files that modules find relative to themselves (specs/openapi.yaml, migrations, Lua scripts, page
// assets and scripts, package.json) are read where they are: each module's `import.meta.url` is
// replaced by the URL of its source file, so no path changes between tsx and the build.
import { readFile } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const sourceUrls = {
  name: "source-urls",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
      const source = await readFile(path, "utf8");
      const url = JSON.stringify(pathToFileURL(path).href);
      return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
    });
  },
};

const entry = process.argv[2] ?? "server/main.ts";
// Worker threads' modules, started by path (new Worker(url)): entry points of their own, found
// through STAMPD_DIST below.
const threads = ["server/store/sqlite/stamp-writer-thread.ts", "server/hashing/hashing-thread-entry.ts"];
const outdir = join(root, "dist");
// Not emptied first: a server already running from it may still import a chunk lazily, and chunk
// names carry their content's hash, so an old one is never overwritten by different code.
await build({
  absWorkingDir: root,
  entryPoints: [entry, ...threads].map((path) => join(root, path)),
  outdir,
  outbase: root,
  define: { STAMPD_DIST: JSON.stringify(pathToFileURL(`${outdir}/`).href) },
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  packages: "external",
  format: "esm",
  platform: "node",
  target: "node20",
  // Stack traces name functions as the source does.
  keepNames: true,
  sourcemap: "linked",
  plugins: [sourceUrls],
  logLevel: "warning",
});
console.error(`built ${relative(root, join(outdir, dirname(entry), `${basename(entry, ".ts")}.js`))}`);
