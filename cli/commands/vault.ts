import type { Command } from "commander";
import type { Schemas } from "../../sdk/src/index.js";
import { clientFor, print, type RemoteFlags, withRemoteOptions } from "../client.js";
import { readInput, valueOrStdin } from "../files.js";
import { collect, duration, keyValue } from "../parsers.js";
import { table } from "../table.js";
import { registerVaultManagement } from "./vault-manage.js";

interface CreateFlags extends RemoteFlags {
  deadline: number;
  recipient?: string;
  contentUri?: string[];
  allowManualRelease?: boolean;
  metadata?: Record<string, string>;
  feeReceipt?: string;
}

/** "6d 23h 59m" until `deadline`, from this machine's clock. */
export function timeLeft(deadline: string, now = Date.now()): string {
  const seconds = Math.floor((Date.parse(deadline) - now) / 1000);
  if (seconds <= 0) return "none (the deadline has passed)";
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d + h + m === 0) return `${seconds}s`;
  return [d && `${d}d`, (d || h) && `${h}h`, `${m}m`].filter(Boolean).join(" ");
}

function describe(vault: Schemas["VaultResponse"]): string {
  const live = vault.state === "active";
  return table([
    ["vault", vault.id],
    ["state", vault.state],
    ["deadline", vault.deadline],
    ["time left", live ? timeLeft(vault.deadline) : `none (${vault.state})`],
    ["last heartbeat", vault.last_heartbeat ?? "never"],
    ["heartbeats", String(vault.heartbeat_count)],
    ["recipient", vault.recipient_public_key ?? "none (owner-bound: only this account retrieves)"],
    ["content", vault.content_uris.join(", ") || "none"],
    ["manual release", vault.allow_manual_release ? "allowed" : "not allowed"],
    ["group", vault.group_id ?? "none"],
  ]);
}

async function create(keyFile: string, flags: CreateFlags): Promise<void> {
  const encrypted = await readInput(keyFile);
  const vault = await clientFor(flags).vault.create({
    // The file holds the already encrypted key as bytes; the API carries them in base64.
    encrypted_key: encrypted.toString("base64"),
    heartbeat_deadline: flags.deadline,
    recipient_public_key: flags.recipient,
    content_uris: flags.contentUri,
    allow_manual_release: flags.allowManualRelease,
    metadata: flags.metadata,
    fee_receipt: flags.feeReceipt === undefined ? undefined : await valueOrStdin(flags.feeReceipt),
  });
  print(flags, vault, () => describe(vault));
}

async function heartbeat(vaultId: string, flags: RemoteFlags & { feeReceipt: string }): Promise<void> {
  const receipt = await clientFor(flags).vault.heartbeat(vaultId, {
    fee_receipt: await valueOrStdin(flags.feeReceipt),
  });
  print(flags, receipt, () =>
    table([
      ["vault", receipt.vault_id],
      ["heartbeat at", receipt.heartbeat_at],
      ["next deadline", `${receipt.next_deadline} (in ${timeLeft(receipt.next_deadline)})`],
      ["fee", `${receipt.fee_amount} ${receipt.fee_currency}`],
    ]),
  );
}

async function status(vaultId: string, flags: RemoteFlags): Promise<void> {
  const vault = await clientFor(flags).vault.get(vaultId);
  print(flags, vault, () => describe(vault));
}

export function registerVault(program: Command): void {
  const vault = program
    .command("vault")
    .description("dead man's switch key vaults of your account (need --api-key)");
  withRemoteOptions(
    vault
      .command("create")
      .description(
        "escrow an encrypted key (POST /vault/create): released to the recipient if no heartbeat comes before the deadline",
      )
      .argument(
        "<key-file>",
        "the key, already encrypted (its bytes are sent base64); - reads standard input",
      )
      .requiredOption(
        "--deadline <duration>",
        "time without heartbeat before release: 3600, 90m, 12h, 30d",
        duration,
      )
      .option(
        "--recipient <public-key>",
        "ed25519:<hex> key of who may retrieve the key once released, from any account; without it the vault is owner-bound (only this account retrieves)",
      )
      .option(
        "--content-uri <uri>",
        "mirror of the encrypted content, ipfs:// ar:// s3:// https:// (repeatable)",
        collect,
      )
      .option("--allow-manual-release", "let the owner release the vault before its deadline")
      .option("--metadata <key=value>", "free-form metadata (repeatable)", keyValue)
      .option(
        "--fee-receipt <receipt>",
        "receipt paying the creation fee, when there is one; - reads standard input",
      ),
  ).action(create);
  withRemoteOptions(
    vault
      .command("heartbeat")
      .description("renew a vault (POST /vault/{id}/heartbeat): its deadline restarts, the receipt is spent")
      .argument("<vault-id>", "the vault (vlt_…)")
      .requiredOption(
        "--fee-receipt <receipt>",
        "receipt covering the heartbeat fee (`stampd receipts issue` in development); - reads standard input",
      ),
  ).action(heartbeat);
  withRemoteOptions(
    vault
      .command("status")
      .description("state, deadline and time left of a vault (GET /vault/{id})")
      .argument("<vault-id>", "the vault (vlt_…)"),
  ).action(status);
  registerVaultManagement(vault);
}
