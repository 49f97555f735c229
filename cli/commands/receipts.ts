import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { loadConfig } from "../../server/config.js";
import { parseDecimal } from "../../server/vault/fees/decimal.js";
import { devIssuer, devIssuerKeyPath } from "../../server/vault/fees/dev-issuer.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";
import { feeSchedule } from "../../server/vault/fees/schedule.js";
import { cliLogger } from "../logger.js";
import { requireExisting } from "../store-target.js";

interface IssueFlags {
  amount: string;
  currency?: string;
  recipient?: string;
  expiresIn: number;
  init?: boolean;
}

function decimalArgument(value: string): string {
  if (!parseDecimal(value)) throw new InvalidArgumentError("expected a decimal such as 0.50");
  return value;
}

function secondsArgument(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds <= 0)
    throw new InvalidArgumentError("expected whole seconds > 0");
  return seconds;
}

/**
 * `stampd receipts issue`: signs a fee receipt with the development issuer key of DATA_DIR/keys/
 * (created on first use), the key a server outside production trusts when FEE_ISSUER_PUBLIC_KEYS
 * is unset. Prints the receipt alone on stdout so scripts can capture it.
 */
export function registerReceipts(program: Command): void {
  const receipts = program.command("receipts").description("fee receipts for vault heartbeats");
  receipts
    .command("issue")
    .description("print a fee receipt signed by the development issuer key in DATA_DIR/keys/")
    .requiredOption("--amount <decimal>", "amount paid, e.g. 0.50", decimalArgument)
    .option("--currency <code>", "currency (default: VAULT_FEE_CURRENCY)")
    .option("--recipient <address>", "fee recipient (default: VAULT_FEE_RECIPIENT)")
    .option("--expires-in <seconds>", "validity in seconds", secondsArgument, 7 * 86_400)
    .option("--init", "create DATA_DIR/keys/ and the issuer key if DATA_DIR holds no server's keys yet")
    .action((flags: IssueFlags) => {
      const config = loadConfig();
      const schedule = feeSchedule(config);
      // The key the server trusts is in its DATA_DIR, beside the key files every server creates at
      // its first start (keys/): a new folder elsewhere would hold a key whose receipts it refuses.
      const keyPath = resolve(devIssuerKeyPath(config.DATA_DIR));
      const keysDir = dirname(keyPath);
      requireExisting(`server key folder at ${keysDir}`, existsSync(keysDir), flags.init, config);
      // Notes (e.g. "created a new key file") go to stderr: stdout carries only the receipt.
      const issuer = devIssuer(config.DATA_DIR, cliLogger(config.LOG_LEVEL));
      const receipt = issueReceipt(issuer, {
        amount: flags.amount,
        currency: flags.currency ?? schedule.currency,
        recipient: flags.recipient ?? schedule.recipient,
        issuedAt: new Date(),
        expiresInSeconds: flags.expiresIn,
      });
      console.log(receipt);
      console.error(`stampd: signed with ${keyPath}`);
    });
}
