import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { extract } from "tar";
import type { Config } from "../config.js";
import { sqlitePath } from "../store/open.js";
import { DATABASE, KEYS, MANIFEST, type Manifest, manifestSchema, sha256 } from "./manifest.js";
import { integrityProblems } from "./sqlite-snapshot.js";

type RestoreConfig = Pick<Config, "DATA_DIR" | "DATABASE_URL">;

/**
 * Restores a backup of `createBackup` into the configured data folder, which must be empty or
 * missing: the archive is unpacked into a private folder beside it, checked (every member's
 * SHA-256 against the manifest, nothing unlisted, the database's integrity) and only then renamed
 * into place, so a failed restore leaves nothing behind and an existing folder is never touched.
 */
export async function restoreBackup(config: RestoreConfig, file: string): Promise<Manifest> {
  const dataDir = resolve(config.DATA_DIR);
  refuseNonEmpty(dataDir);
  mkdirSync(dirname(dataDir), { recursive: true });
  const staging = mkdtempSync(`${dataDir}.restore-`);
  try {
    await unpack(file, staging);
    const manifest = readManifest(staging);
    checkMembers(staging, manifest);
    if (manifest.database === "sqlite") checkDatabase(staging);
    protectKeys(staging);
    rmSync(join(staging, MANIFEST));
    if (manifest.database === "sqlite") placeDatabase(config, staging, dataDir);
    // rename(2) replaces an empty folder but fails on a non-empty one: a folder filled since the
    // check above is still not overwritten.
    renameSync(staging, dataDir);
    return manifest;
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

function refuseNonEmpty(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  if (!statSync(dataDir).isDirectory()) throw new Error(`DATA_DIR ${dataDir} is not a folder`);
  const entries = readdirSync(dataDir);
  if (entries.length > 0) {
    throw new Error(
      `DATA_DIR ${dataDir} is not empty (${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", …" : ""}): ` +
        "restore only fills an empty folder; " +
        "move it aside or point DATA_DIR at a new folder",
    );
  }
}

async function unpack(file: string, staging: string): Promise<void> {
  if (!existsSync(file)) throw new Error(`${file} does not exist`);
  try {
    // strict: a damaged archive (bad gzip data, bad header checksum) is an error, not a warning.
    // node-tar never writes outside `cwd` (absolute paths and `..` are stripped), nor links.
    await extract({
      file,
      cwd: staging,
      strict: true,
      filter: (_path, entry) => "type" in entry && (entry.type === "File" || entry.type === "Directory"),
    });
  } catch (err) {
    throw new Error(`${file} is not a readable stampd backup: ${(err as Error).message}`);
  }
}

function readManifest(staging: string): Manifest {
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(join(staging, MANIFEST), "utf8"));
  } catch {
    throw new Error(`not a stampd backup: it has no readable ${MANIFEST}`);
  }
  const parsed = manifestSchema.safeParse(content);
  if (!parsed.success) {
    throw new Error(
      `not a stampd backup of format version 1: ${MANIFEST}: ${parsed.error.issues[0]?.message}`,
    );
  }
  return parsed.data;
}

function checkMembers(staging: string, manifest: Manifest): void {
  const listed = new Set(manifest.files.map((f) => f.path));
  const unlisted = filesUnder(staging).filter((path) => path !== MANIFEST && !listed.has(path));
  if (unlisted.length > 0)
    throw new Error(`the backup holds files its manifest does not list: ${unlisted.join(", ")}`);
  for (const member of manifest.files) {
    const path = join(staging, member.path);
    if (!existsSync(path)) throw new Error(`the backup is missing ${member.path}, which its manifest lists`);
    if (sha256(readFileSync(path)) !== member.sha256) {
      throw new Error(`${member.path} does not match its SHA-256 in the manifest: the backup is damaged`);
    }
  }
}

function checkDatabase(staging: string): void {
  const problems = integrityProblems(join(staging, DATABASE));
  if (problems) throw new Error(`the database in the backup fails its integrity check: ${problems}`);
}

/** Key files 0600 in a 0700 folder, whatever the archive or the umask said. */
function protectKeys(staging: string): void {
  const keys = join(staging, KEYS);
  if (!existsSync(keys)) return;
  chmodSync(keys, 0o700);
  for (const name of readdirSync(keys)) chmodSync(join(keys, name), 0o600);
}

/** With `DATABASE_URL=sqlite:<path>` the database goes to that path, never over an existing file. */
function placeDatabase(config: RestoreConfig, staging: string, dataDir: string): void {
  const target = sqlitePath(config);
  if (target === undefined) {
    throw new Error(
      "DATABASE_URL is PostgreSQL: this backup holds a SQLite database; restore PostgreSQL with pg_restore",
    );
  }
  if (resolve(target) === join(dataDir, DATABASE)) return;
  if (existsSync(target))
    throw new Error(`${target} (DATABASE_URL) already exists: restore never overwrites a database`);
  mkdirSync(dirname(target), { recursive: true });
  moveFile(join(staging, DATABASE), target);
}

function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    copyFileSync(from, to, constants.COPYFILE_EXCL);
    unlinkSync(from);
  }
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}
