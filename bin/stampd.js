#!/usr/bin/env node
// The `stampd` command. It runs the CLI that `npm install` / `npm ci` compiled into plain JavaScript
// (scripts/build-server.mjs cli/main.ts -> dist/cli/main.js) when that build is newer than every
// TypeScript source it may hold, and otherwise the sources themselves through tsx, so a checkout
// being edited never runs stale code. Plain node answers `stampd --help` in about a tenth of the
// time tsx's loader takes to start.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const built = join(root, "dist", "cli", "main.js");
const SOURCES = ["cli", "sdk/src", "server", "gen", "package.json"];

/** The newest modification time under `path` (a file or a folder), in ms. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const builtAt = statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (builtAt > 0 && SOURCES.every((source) => newest(join(root, source)) < builtAt)) {
  await import(new URL("../dist/cli/main.js", import.meta.url).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../cli/main.ts");
}
