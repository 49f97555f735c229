import { type Command, InvalidArgumentError } from "commander";
import { pino } from "pino";
import { loadConfig } from "../../server/config.js";
import { parseDecimal } from "../../server/vault/fees/decimal.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";
import { feeSchedule } from "../../server/vault/fees/schedule.js";

interface IssueFlags {
  amount: string;
  currency?: string;
  recipient?: string;
  expiresIn: number;
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
    .action((flags: IssueFlags) => {
      const config = loadConfig();
      const schedule = feeSchedule(config);
      // Logs (e.g. "created a new key file") go to stderr: stdout carries only the receipt.
      const logger = pino({ level: config.LOG_LEVEL }, pino.destination(2));
      const issuer = devIssuer(config.DATA_DIR, logger);
      const receipt = issueReceipt(issuer, {
        amount: flags.amount,
        currency: flags.currency ?? schedule.currency,
        recipient: flags.recipient ?? schedule.recipient,
        issuedAt: new Date(),
        expiresInSeconds: flags.expiresIn,
      });
      console.log(receipt);
    });
}
