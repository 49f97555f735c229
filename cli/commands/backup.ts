import type { Command } from "commander";
import { createBackup } from "../../server/backup/create-backup.js";
import { DATABASE, KEYS, type Manifest } from "../../server/backup/manifest.js";
import { restoreBackup } from "../../server/backup/restore-backup.js";
import { systemClock } from "../../server/clock.js";
import { type Config, loadConfig } from "../../server/config.js";
import { defaultKeyFiles } from "../../server/keys/service-keys.js";

const signingKey = `${KEYS}/${defaultKeyFiles.signing}`;

function listMembers(manifest: Manifest): string {
  return manifest.files
    .map(
      (f) =>
        `  ${f.path.padEnd(28)} ${String(f.bytes).padStart(12)} bytes${f.source ? `  (from ${f.source})` : ""}`,
    )
    .join("\n");
}

async function backup(file: string, flags: { keysOnly?: boolean }): Promise<void> {
  const manifest = await createBackup(loadConfig(), file, {
    keysOnly: flags.keysOnly,
    now: systemClock.now(),
  });
  console.log(`backup written to ${file} (stampd ${manifest.stampd_version}, ${manifest.created_at}):`);
  console.log(listMembers(manifest));
  // Loud on purpose: the file is as sensitive as the keys folder itself.
  console.error(
    `WARNING: ${file} contains the service's SECRET KEYS (stamp signing, at-rest encryption, TSA). ` +
      "Anyone who reads it can sign stamps as this service and decrypt identity keys. " +
      "It is written with mode 0600: keep it that way, encrypted and access-controlled, wherever you copy it.",
  );
  if (!manifest.files.some((f) => f.path === signingKey)) {
    console.error(
      `WARNING: no service signing key was found (DATA_DIR/${signingKey}, SERVICE_SIGNING_KEY_FILE): ` +
        "it is not in the backup, and the stamps restored from it can only verify with that key.",
    );
  }
}

async function restore(file: string): Promise<void> {
  const config = loadConfig();
  const manifest = await restoreBackup(config, file);
  const what =
    manifest.database === "sqlite" ? `the database (${DATABASE}, integrity ok) and keys` : "keys only";
  console.log(
    `restored ${what} into ${config.DATA_DIR} from a stampd ${manifest.stampd_version} backup of ${manifest.created_at}; every checksum matched:`,
  );
  console.log(listMembers(manifest));
  for (const note of overridingSettings(config)) console.error(note);
}

/** Settings in force now that make the server use other keys than the restored files. */
function overridingSettings(config: Config): string[] {
  const names = (
    ["SERVICE_SIGNING_KEY_FILE", "AT_REST_KEY_FILE", "AT_REST_KEY", "AT_REST_KEY_COMMAND"] as const
  ).filter((n) => config[n]);
  return names.map(
    (name) =>
      `note: ${name} is set: the server will use it instead of the restored file in DATA_DIR/${KEYS}/`,
  );
}

export function registerBackup(program: Command): void {
  program
    .command("backup")
    .description(
      "write an online backup (SQLite database snapshot, key files, manifest) to a new .tar.gz file, mode 0600",
    )
    .argument("<file>", "the archive to create; an existing file is never overwritten")
    .option("--keys-only", "only the key files (for PostgreSQL, whose database pg_dump saves)")
    .action(backup);
  program
    .command("restore")
    .description(
      "restore a backup into an empty DATA_DIR, after checking its checksums and the database's integrity",
    )
    .argument("<file>", "an archive written by `stampd backup`")
    .action(restore);
}
