import Database from "better-sqlite3";

/** Past any database's page count: sqlite3_backup_step copies everything that is left in one call. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the live database at `source` to `target` with SQLite's online backup API, while other
 * processes (the server) keep writing. All pages go in one step, inside one read transaction: in
 * WAL mode that is a consistent snapshot of the last commit and it does not block writers, whereas
 * small steps restart from scratch whenever another connection writes in between.
 */
export async function snapshotSqlite(source: string, target: string): Promise<void> {
  const db = openExisting(source, { readonly: true });
  try {
    await db.backup(target, { progress: () => ALL_PAGES });
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check`: undefined when the database is sound, else SQLite's first findings. */
export function integrityProblems(path: string): string | undefined {
  const db = openExisting(path, { readonly: false });
  try {
    const rows = db.pragma("integrity_check") as { integrity_check: string }[];
    const findings = rows.map((row) => row.integrity_check);
    return findings.length === 1 && findings[0] === "ok" ? undefined : findings.slice(0, 5).join("; ");
  } catch (err) {
    // A file that is not a database at all fails before the check can run.
    return (err as Error).message;
  } finally {
    db.close();
  }
}

function openExisting(path: string, { readonly }: { readonly: boolean }): Database.Database {
  try {
    return new Database(path, { readonly, fileMustExist: true });
  } catch (err) {
    throw new Error(`cannot open the SQLite database ${path}: ${(err as Error).message}`);
  }
}
