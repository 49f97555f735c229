import { readFileSync } from "node:fs";
import { Command } from "commander";
import { EXIT_USAGE } from "./exit-codes.js";

type Register = (program: Command) => void;

/**
 * The command groups: their names and one-line summaries, and how to load them. Only the group
 * named on the command line is imported (the SDK and the server's modules take seconds to load
 * under tsx, `--help` none of that); the others appear in `stampd --help` by their summary.
 *
 * `keys`, `receipts`, `config`, `backup` and `restore` work on the server's own configuration
 * (DATA_DIR, DATABASE_URL); `verify` works offline; the others talk to a running server through
 * the SDK.
 */
const groups: { commands: Record<string, string>; load: () => Promise<Register> }[] = [
  {
    commands: { stamp: "stamp files (uploads, or hashes only through gRPC BatchStamp)" },
    load: async () => (await import("./commands/stamp.js")).registerStamp,
  },
  {
    commands: { get: "show a stamp's status, anchors and trust score" },
    load: async () => (await import("./commands/get.js")).registerGet,
  },
  {
    commands: { search: "find the stamps of a document by its hash (--hash or --file), newest first" },
    load: async () => (await import("./commands/search.js")).registerSearch,
  },
  {
    commands: { upgrade: "fetch newer proof into proof bundles (*.stampd.json)" },
    load: async () => (await import("./commands/upgrade.js")).registerUpgrade,
  },
  {
    commands: { info: "describe a proof bundle (*.stampd.json)" },
    load: async () => (await import("./commands/info.js")).registerInfo,
  },
  {
    commands: { log: "the transparency log: checkpoint, inclusion and consistency proofs, verified" },
    load: async () => (await import("./commands/log.js")).registerLog,
  },
  {
    commands: { hash: "hash a file on the server (nothing is stored), or here with --local" },
    load: async () => (await import("./commands/hash.js")).registerHash,
  },
  {
    commands: {
      fingerprint: "structural fingerprint of a file",
      compare: "structural similarity of two documents or saved fingerprints",
    },
    load: async () => (await import("./commands/fingerprint.js")).registerFingerprints,
  },
  {
    commands: { identity: "signing identities: Ed25519 keys the service holds for your account" },
    load: async () => (await import("./commands/identity.js")).registerIdentity,
  },
  {
    commands: { vault: "dead man's switch key vaults of your account (need --api-key)" },
    load: async () => (await import("./commands/vault.js")).registerVault,
  },
  {
    commands: {
      backup: "write an online backup (database snapshot, key files, manifest) to a .tar.gz file",
      restore: "restore a backup into an empty DATA_DIR",
    },
    load: async () => (await import("./commands/backup.js")).registerBackup,
  },
  {
    commands: { config: "print the effective configuration, secrets masked" },
    load: async () => (await import("./commands/config.js")).registerConfig,
  },
  {
    commands: { keys: "API keys, and the deployment's signing keys (key ring, rotation)" },
    load: async () => (await import("./commands/keys.js")).registerKeys,
  },
  {
    commands: { receipts: "fee receipts for vault heartbeats" },
    load: async () => (await import("./commands/receipts.js")).registerReceipts,
  },
  {
    commands: {
      verify: "verify a stamp or proof bundle offline (no network), or --online by the server",
    },
    load: async () => (await import("./commands/verify.js")).registerVerify,
  },
  {
    commands: { conformance: "check any deployment against the contract (docs/conformance.md)" },
    load: async () => (await import("./commands/conformance.js")).registerConformance,
  },
];

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/**
 * Exit codes: 0 success, 1 failure (an error from the server, an invalid stamp), 2 usage error
 * (bad options or arguments, a file that cannot be read: then nothing was sent).
 */
const program = new Command("stampd")
  .description("stampd: tamper-evident document stamps, from the terminal")
  .version(version, "-v, --version", "print the version")
  // Inherited by the commands registered below: commander's own usage errors exit 2, not 1.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE));

const words = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const named = words[0] === "help" ? words[1] : words[0];
for (const group of groups) {
  if (named !== undefined && named in group.commands) (await group.load())(program);
  else
    for (const [name, summary] of Object.entries(group.commands)) program.command(name).description(summary);
}
withUsageHints(program, "stampd");

/** A usage error prints the error and one line pointing at the command's help, not the whole help. */
function withUsageHints(command: Command, path: string): void {
  command.showHelpAfterError(`(see ${path} --help)`);
  for (const sub of command.commands) withUsageHints(sub, `${path} ${sub.name()}`);
}

program.parseAsync(process.argv).catch(async (err: unknown) => {
  const [{ ConfigError }, { reportError }] = await Promise.all([
    import("../server/config.js"),
    import("./errors.js"),
  ]);
  const { line, exitCode } =
    err instanceof ConfigError ? { line: err.message, exitCode: EXIT_USAGE } : reportError(err);
  console.error(line);
  process.exitCode = exitCode;
});
