import { closeSync, fsyncSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { unavailable } from "../../errors.js";
import { wrapMethods } from "../../metrics/wrap-methods.js";
import type { StoreAvailability } from "../store-availability.js";

/**
 * Below this many free bytes an I/O error of SQLite's is taken for a full disk. SQLite reports
 * ENOSPC as SQLITE_FULL where it writes the database or its WAL (the large writes), but as an
 * SQLITE_IOERR_* elsewhere (SHMSIZE when a connection creates its 32 KiB WAL index, WRITE, FSYNC,
 * TRUNCATE), and never says the errno: free space is how to tell. Small, so that an I/O error on a
 * small but not full disk stays what it is.
 */
const LOW_SPACE_BYTES = 1024 * 1024;

/** What the probe writes next to the database before trying SQLite: room for a group of stamps. */
const PROBE_BYTES = 1024 * 1024;

/** Whether `err` (or its cause: the writer thread's end) says the disk under `path` is full. */
export function isDiskFull(err: unknown, path: string): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "SQLITE_FULL") return true;
  if (typeof code === "string" && code.startsWith("SQLITE_IOERR")) return freeBytes(path) < LOW_SPACE_BYTES;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause !== undefined && cause !== err && isDiskFull(cause, path);
}

function freeBytes(path: string): number {
  try {
    const { bavail, bsize } = statfsSync(dirname(path));
    return bavail * bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export interface DiskFullOptions {
  /** STORE_RETRY_AFTER_SECONDS: the `Retry-After` of a `storage_full` answer. */
  retryAfterSeconds: number;
}

/**
 * The one place the SQLite store turns a full disk into the domain's answer: `storage_full`
 * (REST 503 + Retry-After, gRPC UNAVAILABLE, a WebSocket `unavailable` error) instead of a driver
 * error, recorded in the store's availability (readiness says `storage`) until a probe writes
 * again. SQLite rolls back the statement or transaction that met the full disk, so nothing is half
 * written: what was committed stays readable and verifiable, and writes work again once space is
 * freed, without a restart (docs/operations.md "When a dependency fails").
 */
export class DiskFull {
  constructor(
    private readonly db: Database.Database,
    private readonly availability: StoreAvailability,
    private readonly options: DiskFullOptions,
  ) {}

  /** `err` as the domain sees it: `storage_full` for a full disk, else unchanged. */
  failure(err: unknown): unknown {
    if (!isDiskFull(err, this.db.name)) return err;
    this.availability.failed("storage", () => this.probe());
    return unavailable(
      "the server's disk is full: nothing can be stored until space is freed",
      "storage_full",
      this.options.retryAfterSeconds,
    );
  }

  /** A write committed: the disk takes writes (again). */
  written(): void {
    this.availability.answered("storage");
  }

  /**
   * `repo` with every method's failure passed through `failure`, thrown or rejected alike (the
   * repositories are synchronous inside: better-sqlite3 throws).
   */
  guard<T extends object>(repo: T): T {
    const translate = (err: unknown): never => {
      throw this.failure(err);
    };
    return wrapMethods(repo, (_name, call) => (...args) => {
      let result: unknown;
      try {
        result = call(...args);
      } catch (err) {
        translate(err);
      }
      return result instanceof Promise ? result.then(undefined, translate) : result;
    });
  }

  /**
   * A small real write: a file of PROBE_BYTES next to the database (fsynced, removed), then the
   * database's header through SQLite (its `user_version`, unchanged), which commits through the WAL.
   */
  private async probe(): Promise<void> {
    const file = join(dirname(this.db.name), ".stampd-space-probe");
    try {
      const fd = openSync(file, "w", 0o600);
      try {
        writeSync(fd, Buffer.alloc(PROBE_BYTES));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } finally {
      rmSync(file, { force: true });
    }
    const version = this.db.pragma("user_version", { simple: true }) as number;
    this.db.pragma(`user_version = ${version}`);
  }
}

/**
 * A full disk at start (the WAL index cannot be created, a migration cannot be written) as the one
 * line an operator needs: main.ts prints an error with an `E…` code as
 * `stampd: cannot start: <message> (ENOSPC)` and exits 1, without a stack.
 */
export function startupDiskFull(err: unknown, path: string): unknown {
  if (!isDiskFull(err, path)) return err;
  const { code } = err as { code?: string };
  const message = `the disk holding ${path} is full (SQLite: ${code}); free space and start again`;
  return Object.assign(new Error(message, { cause: err }), { code: "ENOSPC" });
}
