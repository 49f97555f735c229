#!/usr/bin/env node
// package.json "postinstall": runs after `npm ci` / `npm install` in a checkout, and after an app
// installs a packed stampd (`npm pack`, then `npm install ./stampd-<version>.tgz`: docs/cli.md).
//
// In a checkout it applies patches/ to node_modules (patch-package, a devDependency) and compiles
// the CLI (scripts/build-server.mjs cli/main.ts), which bin/stampd.js then runs with plain node.
// Installed as a package it only compiles the CLI: patch-package is not installed there, and the
// app's node_modules are not ours to patch (the patches concern the server, which is run from a
// checkout). If this script does not run at all (an npm whose allowScripts policy blocks it),
// bin/stampd.js runs the TypeScript through tsx instead.
import { execFileSync } from "node:child_process";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const installedAsPackage = root.split(sep).includes("node_modules");
const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: "inherit" });

if (!installedAsPackage) run([join(root, "node_modules/patch-package/index.js")]);
run([join(root, "scripts/build-server.mjs"), "cli/main.ts"]);
