import { randomBytes, sign } from "node:crypto";
import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import type { Schemas } from "../../sdk/src/index.js";
import { retrievalMessage } from "../../server/vault/proof.js";
import { clientFor, positiveInteger, print, type RemoteFlags, withRemoteOptions } from "../client.js";
import { UsageError } from "../errors.js";
import { readInput, valueOrStdin } from "../files.js";
import { duration } from "../parsers.js";
import { table } from "../table.js";

/** The vault commands beyond create/heartbeat/status: list, release, burn, retrieve, group. */

async function list(flags: RemoteFlags & { state?: Schemas["VaultState"]; limit?: number }): Promise<void> {
  const vaults: Schemas["VaultListItem"][] = [];
  const query = {
    ...(flags.state ? { state: flags.state } : {}),
    ...(flags.limit ? { limit: flags.limit } : {}),
  };
  for await (const vault of clientFor(flags).vault.list(query)) vaults.push(vault);
  print(flags, vaults, () =>
    vaults.length === 0
      ? "no vaults"
      : table([
          ["ID", "STATE", "DEADLINE", "HEARTBEATS"],
          ...vaults.map((v) => [v.id, v.state, v.deadline, String(v.heartbeat_count)]),
        ]),
  );
}

async function release(vaultId: string, flags: RemoteFlags & { reason: string }): Promise<void> {
  const released = await clientFor(flags).vault.release(vaultId, { reason: flags.reason });
  print(flags, released, () =>
    table([
      ["vault", released.vault_id],
      ["released at", released.released_at],
      ["reason", released.reason],
    ]),
  );
}

async function burn(vaultId: string, flags: RemoteFlags & { reason: string; yes?: boolean }): Promise<void> {
  if (!flags.yes) throw new UsageError("burn destroys the escrowed key for good: pass --yes to confirm");
  const burned = await clientFor(flags).vault.burn(vaultId, { reason: flags.reason });
  print(flags, burned, () =>
    table([
      ["vault", burned.vault_id],
      ["burned at", burned.burned_at],
      ["reason", burned.reason],
    ]),
  );
}

interface RetrieveFlags extends RemoteFlags {
  out: string;
  recipientKey?: string;
}

/**
 * The proof of identity: the recipient's Ed25519 signature over the retrieval message when the
 * vault has a recipient, else (owner-bound) fresh random bytes, accepted once.
 */
async function proofOfIdentity(
  vaultId: string,
  recipientKey: string | undefined,
): Promise<Schemas["RetrieveRequest"]> {
  if (recipientKey === undefined) return { proof_of_identity: randomBytes(32).toString("base64") };
  const pem = await readInput(recipientKey);
  const signedAt = new Date().toISOString();
  let signature: Buffer;
  try {
    signature = sign(null, Buffer.from(retrievalMessage(vaultId, signedAt)), pem);
  } catch (err) {
    throw new UsageError(
      `cannot sign with ${recipientKey}: ${(err as Error).message} (expected an Ed25519 private key, PEM)`,
    );
  }
  return { proof_of_identity: signature.toString("base64"), signed_at: signedAt };
}

async function retrieve(vaultId: string, flags: RetrieveFlags): Promise<void> {
  const body = await proofOfIdentity(vaultId, flags.recipientKey);
  const retrieved = await clientFor(flags).vault.retrieve(vaultId, body);
  const bytes = Buffer.from(retrieved.encrypted_key, "base64");
  // The key file is written like the server's key files: owner-only, never over an existing file.
  await writeFile(flags.out, bytes, { mode: 0o600, flag: "wx" }).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(
      `cannot write ${flags.out}: ${err.code === "EEXIST" ? "it exists (never overwritten)" : err.message}`,
    );
  });
  print(flags, { ...retrieved, encrypted_key_file: flags.out }, () =>
    table([
      ["vault", retrieved.vault_id],
      ["released at", retrieved.released_at],
      ["encrypted key", `${bytes.length} bytes written to ${flags.out}`],
    ]),
  );
}

async function groupCreate(
  name: string,
  vaultIds: string[],
  flags: RemoteFlags & { interval: number },
): Promise<void> {
  const group = await clientFor(flags).vault.createGroup({
    name,
    vault_ids: vaultIds,
    interval: flags.interval,
  });
  print(flags, group, () =>
    table([
      ["group", group.id],
      ["name", group.name],
      ["vaults", group.vault_ids.join(", ")],
      ["interval", `${group.interval} s`],
    ]),
  );
}

async function groupHeartbeat(
  vaultIds: string[],
  flags: RemoteFlags & { feeReceipt: string },
): Promise<void> {
  const result = await clientFor(flags).vault.batchHeartbeat({
    vault_ids: vaultIds,
    fee_receipt: await valueOrStdin(flags.feeReceipt),
  });
  print(flags, result, () =>
    table([
      ["renewed", String(result.renewed)],
      ["failed", String(result.failed)],
      ...result.results.map((r) => [r.vault_id, `next deadline ${r.next_deadline}`]),
      ...result.errors.map((e) => [e.vault_id, `not renewed: ${e.detail} (${e.code})`]),
    ]),
  );
  if (result.failed > 0) process.exitCode = 1;
}

export function registerVaultManagement(vault: Command): void {
  withRemoteOptions(
    vault
      .command("list")
      .description("the vaults of your account, newest first (GET /vault/list, every page)")
      // The server checks the state against the spec's VaultState: a wrong one is its 400.
      .option("--state <state>", "only vaults in this state: active, released, expired or burned")
      .option("--limit <n>", "vaults per request", positiveInteger),
  ).action(list);
  withRemoteOptions(
    vault
      .command("release")
      .description(
        "release a vault before its deadline (POST /vault/{id}/release; needs allow_manual_release)",
      )
      .argument("<vault-id>", "the vault (vlt_…)")
      .requiredOption("--reason <text>", "why, kept with the vault"),
  ).action(release);
  withRemoteOptions(
    vault
      .command("burn")
      .description("destroy a vault's escrowed key for good (POST /vault/{id}/burn)")
      .argument("<vault-id>", "the vault (vlt_…)")
      .requiredOption("--reason <text>", "why, kept with the vault")
      .option("--yes", "confirm: the key cannot be recovered afterwards"),
  ).action(burn);
  withRemoteOptions(
    vault
      .command("retrieve")
      .description(
        "fetch the encrypted key of a released or expired vault into a file (POST /vault/{id}/retrieve)",
      )
      .argument("<vault-id>", "the vault (vlt_…)")
      .requiredOption("--out <file>", "where to write the key's bytes (mode 0600; never overwritten)")
      .option(
        "--recipient-key <pem-file>",
        "the recipient's Ed25519 private key (PEM) for a vault with a recipient; without it: owner-bound retrieval by your account",
      ),
  ).action(retrieve);
  const group = vault.command("group").description("heartbeat groups: renew several vaults with one receipt");
  withRemoteOptions(
    group
      .command("create")
      .description("group vaults so one heartbeat renews them all (POST /vault/group/create)")
      .argument("<name>", "a name for the group")
      .argument("<vault-id...>", "the vaults (vlt_…)")
      .requiredOption(
        "--interval <duration>",
        "deadline every member gets at each heartbeat: 3600, 90m, 12h, 30d",
        duration,
      ),
  ).action(groupCreate);
  withRemoteOptions(
    group
      .command("heartbeat")
      .description(
        "renew several vaults with one receipt (POST /vault/batch-heartbeat); exit 1 if any failed",
      )
      .argument("<vault-id...>", "the vaults (vlt_…)")
      .requiredOption(
        "--fee-receipt <receipt>",
        "receipt covering the fees of all of them; - reads standard input",
      ),
  ).action(groupHeartbeat);
}
