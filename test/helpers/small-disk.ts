import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const mounts: string[] = [];

/**
 * A fresh tmpfs of `size` (mount's `size=`) to serve as a DATA_DIR that fills up; the test fails
 * (never skips) when it cannot be mounted. `unmountSmallDisks()` (in afterAll) removes them.
 */
export function mountTmpfs(size = "8m"): string {
  const dir = mkdtempSync(join(tmpdir(), "stampd-full-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `the full-disk test needs a tmpfs it can fill and must run as root (mount -t tmpfs): ${String((err as { stderr?: unknown }).stderr ?? err).trim()}`,
    );
  }
  mounts.push(dir);
  return dir;
}

/** Unmounts every tmpfs mountTmpfs made, and removes its folder. */
export function unmountSmallDisks(): void {
  for (const dir of mounts.splice(0)) {
    // Lazily when busy (a server a failed test left running): no mount outlives the run.
    try {
      execFileSync("umount", [dir], { stdio: "pipe" });
    } catch {
      execFileSync("umount", ["-l", dir]);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Takes every free block of the file system under `dir`, writing until it refuses (the server may
 * take some meanwhile); returns the filler's path.
 */
export function fill(dir: string, name = "filler"): string {
  const filler = join(dir, name);
  const fd = openSync(filler, "w");
  try {
    // Large writes first, then small ones for what a large one no longer fits in.
    for (const chunk of [Buffer.alloc(1024 * 1024), Buffer.alloc(4096)]) {
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

/** SQLite's `PRAGMA integrity_check` of the database at `path`: "ok" when nothing is corrupt. */
export function integrityCheck(path: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma("integrity_check", { simple: true });
  } finally {
    db.close();
  }
}
