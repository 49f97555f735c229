import { closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "../logger.js";

/** Group and other permission bits: none of them belongs on a folder or file holding vault data or keys. */
const groupOrOther = 0o077;

/** Creates a folder (and its missing parents) readable by the owner only: 0700 whatever the umask. */
export function createPrivateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
}

/**
 * Creates the SQLite file 0600 before SQLite opens it: SQLite would create it 0644, and gives its
 * -wal and -shm files the database file's mode, so all three stay the owner's.
 */
export function createPrivateDatabaseFile(path: string): void {
  createPrivateFolder(dirname(path));
  closeSync(openSync(path, "a", 0o600));
}

/** DATA_DIR, its keys, and the SQLite files (if any), where any exists with group or other permissions. */
export function widePermissions(dataDir: string, databaseFile?: string): string[] {
  const keys = join(dataDir, "keys");
  const keyFiles = existsSync(keys) ? readdirSync(keys).map((name) => join(keys, name)) : [];
  const db = databaseFile === ":memory:" ? undefined : databaseFile;
  const dbFiles = db ? [db, `${db}-wal`, `${db}-shm`] : [];
  return [dataDir, keys, ...keyFiles, ...dbFiles].filter(
    (path) => existsSync(path) && (statSync(path).mode & groupOrOther) !== 0,
  );
}

/**
 * One warning at start when DATA_DIR or what it holds is open to other local users: they could
 * read vault keys (ciphertext), metadata and signing keys. Existing deployments are not chmod-ed
 * behind the operator's back; the line says what to run.
 */
export function warnOfWidePermissions(
  dataDir: string,
  databaseFile: string | undefined,
  logger: Logger,
): void {
  const paths = widePermissions(dataDir, databaseFile);
  if (paths.length === 0) return;
  logger.warn(
    { paths },
    "data files are accessible to group or others (any local user may read vault data and keys); chmod 700 the folders and 600 the files",
  );
}
