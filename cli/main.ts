import { Command } from "commander";
import { ConfigError } from "../server/config.js";
import { registerConfig } from "./commands/config.js";
import { registerKeys } from "./commands/keys.js";
import { registerReceipts } from "./commands/receipts.js";
import { registerVerify } from "./commands/verify.js";

/** Each command group registers itself; they share the server's configuration (DATA_DIR, DATABASE_URL). */
const program = new Command("stampd")
  .description("stampd: tamper-evident document stamps, from the terminal")
  .showHelpAfterError();

registerConfig(program);
registerKeys(program);
registerReceipts(program);
registerVerify(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `stampd: ${(err as Error).message}`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
