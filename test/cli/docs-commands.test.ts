// docs/cli.md names every command `stampd --help` lists, subcommands included (issue #36: backup,
// restore, conformance, log monitor and keys list were missing).
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { expect, it } from "vitest";
import { registerBackup } from "../../cli/commands/backup.js";
import { registerConfig } from "../../cli/commands/config.js";
import { registerConformance } from "../../cli/commands/conformance.js";
import { registerFingerprints } from "../../cli/commands/fingerprint.js";
import { registerGet } from "../../cli/commands/get.js";
import { registerHash } from "../../cli/commands/hash.js";
import { registerIdentity } from "../../cli/commands/identity.js";
import { registerInfo } from "../../cli/commands/info.js";
import { registerKeys } from "../../cli/commands/keys.js";
import { registerLog } from "../../cli/commands/log.js";
import { registerReceipts } from "../../cli/commands/receipts.js";
import { registerSearch } from "../../cli/commands/search.js";
import { registerStamp } from "../../cli/commands/stamp.js";
import { registerUpgrade } from "../../cli/commands/upgrade.js";
import { registerVault } from "../../cli/commands/vault.js";
import { registerVerify } from "../../cli/commands/verify.js";
import { runStampd, SPAWNS_TIMEOUT } from "./run-stampd.js";

const doc = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");

/** Every command group, registered in this process: their subcommands are walked below. */
function fullProgram(): Command {
  const program = new Command("stampd");
  for (const register of [
    registerStamp,
    registerGet,
    registerSearch,
    registerUpgrade,
    registerInfo,
    registerLog,
    registerHash,
    registerFingerprints,
    registerIdentity,
    registerVault,
    registerBackup,
    registerConfig,
    registerKeys,
    registerReceipts,
    registerVerify,
    registerConformance,
  ])
    register(program);
  return program;
}

/** Every leaf command's path, e.g. ["vault", "group", "create"]. */
function commandPaths(command: Command, parent: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...parent, sub.name()];
    return sub.commands.length === 0 ? [path] : commandPaths(sub, path);
  });
}

/**
 * Whether the doc shows the command in a code span: `stampd vault group create <name>`, or with
 * the last word among alternatives (`stampd identity create\|show <id>`).
 */
function documented(path: string[]): boolean {
  const head = path
    .slice(0, -1)
    .map((word) => `${word} `)
    .join("");
  const last = path.at(-1)!;
  return new RegExp(`\`stampd ${head}(?:[\\w-]+\\\\?\\|)*${last}\\b[^\`]*\``).test(doc);
}

it(
  "docs/cli.md shows every command of stampd --help",
  async () => {
    const program = fullProgram();
    // The groups registered here are the ones the CLI lists: a new one must be added above.
    const { out } = await runStampd(["--help"]);
    const listed = [...(out.split(/^Commands:$/m)[1] ?? "").matchAll(/^ {2}([a-z][\w-]*)/gm)].map(
      (m) => m[1],
    );
    expect(program.commands.map((c) => c.name()).sort()).toEqual(listed.filter((n) => n !== "help").sort());
    const paths = commandPaths(program);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !documented(path)).map((path) => path.join(" "))).toEqual([]);
  },
  SPAWNS_TIMEOUT,
);
