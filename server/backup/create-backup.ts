import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { create } from "tar";
import type { Config } from "../config.js";
import { sqlitePath } from "../store/open.js";
import { VERSION } from "../version.js";
import { collectKeyFiles } from "./key-files.js";
import { DATABASE, describeMember, KEYS, MANIFEST, type Manifest, type ManifestMember } from "./manifest.js";
import { integrityProblems, snapshotSqlite } from "./sqlite-snapshot.js";

type BackupConfig = Pick<
  Config,
  "DATA_DIR" | "DATABASE_URL" | "SERVICE_SIGNING_KEY_FILE" | "AT_REST_KEY_FILE" | "AT_REST_KEY"
> &
  Partial<Pick<Config, "AT_REST_KEY_COMMAND" | "AT_REST_KEY_COMMAND_TIMEOUT_SECONDS">>;

export interface BackupOptions {
  /** Only the key files: how a PostgreSQL deployment saves what pg_dump does not. */
  keysOnly?: boolean;
  /** The backup's `created_at`. */
  now: Date;
}

/**
 * Writes a gzipped tar archive to `file` (mode 0600, never over an existing file) holding a
 * consistent snapshot of the SQLite database, the service's key files and a manifest with the
 * SHA-256 of each. The members are staged in a private folder beside `file`, not in /tmp, which
 * may be too small for the database or on another file system.
 */
export async function createBackup(
  config: BackupConfig,
  file: string,
  options: BackupOptions,
): Promise<Manifest> {
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`${file} already exists: a backup never overwrites a file`);
  const database = options.keysOnly ? undefined : sqlitePath(config);
  if (!options.keysOnly && database === undefined) {
    throw new Error(
      "DATABASE_URL is PostgreSQL: back the database up with pg_dump -Fc (docs/operations.md, Backup and restore); " +
        "`stampd backup --keys-only <file>` saves the key files",
    );
  }
  if (!existsSync(dirname(target))) throw new Error(`the folder ${dirname(target)} does not exist`);
  const staging = mkdtempSync(join(dirname(target), ".stampd-backup-"));
  try {
    const manifest = await stage(config, staging, database, options.now);
    const archive = join(staging, "archive.tar.gz");
    const members = [MANIFEST, ...manifest.files.map((f) => f.path)];
    await create({ gzip: true, file: archive, cwd: staging, portable: true, mode: 0o600 }, members);
    syncFile(archive);
    renameSync(archive, target);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function stage(
  config: BackupConfig,
  staging: string,
  database: string | undefined,
  now: Date,
): Promise<Manifest> {
  const files: ManifestMember[] = [];
  if (database !== undefined) {
    if (!existsSync(database)) throw new Error(`no database at ${database}: nothing to back up`);
    await snapshotSqlite(database, join(staging, DATABASE));
    const problems = integrityProblems(join(staging, DATABASE));
    if (problems) throw new Error(`the database ${database} fails its integrity check: ${problems}`);
    files.push(describeMember(staging, DATABASE));
  }
  const keys = collectKeyFiles(config);
  if (database === undefined && keys.length === 0) {
    throw new Error(`no key files in ${join(config.DATA_DIR, KEYS)} nor configured: nothing to back up`);
  }
  mkdirSync(join(staging, KEYS), { mode: 0o700 });
  for (const key of keys) {
    const path = `${KEYS}/${key.name}`;
    writeFileSync(join(staging, path), key.content, { mode: 0o600 });
    files.push(describeMember(staging, path, key.source));
  }
  const manifest: Manifest = {
    format: "stampd-backup",
    format_version: 1,
    stampd_version: VERSION,
    created_at: now.toISOString(),
    database: database === undefined ? "none" : "sqlite",
    files,
  };
  writeFileSync(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** A backup that a crash could leave half on disk is no backup: flush it before it gets its name. */
function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
