import { Command } from "commander";
import { ConfigError } from "../server/config.js";
import { registerBackup } from "./commands/backup.js";
import { registerConfig } from "./commands/config.js";
import { registerFingerprints } from "./commands/fingerprint.js";
import { registerHash } from "./commands/hash.js";
import { registerIdentity } from "./commands/identity.js";
import { registerKeys } from "./commands/keys.js";
import { registerReceipts } from "./commands/receipts.js";
import { registerSearch } from "./commands/search.js";
import { registerStamp } from "./commands/stamp.js";
import { registerVault } from "./commands/vault.js";
import { registerVerify } from "./commands/verify.js";
import { EXIT_USAGE, reportError } from "./errors.js";

/**
 * Each command group registers itself. `keys`, `receipts` and `config` work on the server's own
 * configuration (DATA_DIR, DATABASE_URL); `verify` works offline; `stamp`, `hash`,
 * `fingerprint`, `compare`, `identity` and `vault` talk to a running server through the SDK.
 *
 * Exit codes: 0 success, 1 failure (an error from the server, an invalid stamp), 2 usage error
 * (bad options or arguments, a file that cannot be read: then nothing was sent).
 */
const program = new Command("stampd")
  .description("stampd: tamper-evident document stamps, from the terminal")
  .showHelpAfterError()
  // Inherited by the commands registered below: commander's own usage errors exit 2, not 1.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT_USAGE));

registerStamp(program);
registerSearch(program);
registerHash(program);
registerFingerprints(program);
registerIdentity(program);
registerVault(program);
registerBackup(program);
registerConfig(program);
registerKeys(program);
registerReceipts(program);
registerVerify(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  const { line, exitCode } =
    err instanceof ConfigError ? { line: err.message, exitCode: EXIT_USAGE } : reportError(err);
  console.error(line);
  process.exitCode = exitCode;
});
