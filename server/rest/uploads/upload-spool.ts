import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readdir, statfs, unlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import type { Config } from "../../config.js";
import { unavailable } from "../../errors.js";
import type { Logger } from "../../logger.js";

/** Bytes a spool keeps in memory before it moves to a file: most documents never touch the disk. */
const MEMORY_BYTES = 256 * 1024;
/** Bytes queued while a write is in flight; they go to the file in one `writev`. */
const QUEUE_BYTES = 256 * 1024;
const SUFFIX = ".spool";
/** How often (in bytes spooled) the free space left on the spool's filesystem is looked at again. */
const ROOM_CHECK_BYTES = 16 * 1024 * 1024;

/** The spool folder: UPLOAD_SPOOL_DIR, or DATA_DIR/spool. */
export function spoolFolder(config: Pick<Config, "UPLOAD_SPOOL_DIR" | "DATA_DIR">): string {
  return config.UPLOAD_SPOOL_DIR ?? join(config.DATA_DIR, "spool");
}

/**
 * Where uploads spool and the room they must leave: by default the spool shares the database's
 * filesystem (DATA_DIR), so an upload never takes its last `minFreeBytes` (UPLOAD_SPOOL_MIN_FREE_BYTES)
 * and the database keeps room to write while any upload is in flight.
 */
export interface SpoolPlace {
  folder: string;
  minFreeBytes: number;
  /** The `Retry-After` of a refusal for want of room (STORE_RETRY_AFTER_SECONDS). */
  retryAfterSeconds: number;
}

export function spoolPlace(
  config: Pick<
    Config,
    "UPLOAD_SPOOL_DIR" | "DATA_DIR" | "UPLOAD_SPOOL_MIN_FREE_BYTES" | "STORE_RETRY_AFTER_SECONDS"
  >,
): SpoolPlace {
  return {
    folder: spoolFolder(config),
    minFreeBytes: config.UPLOAD_SPOOL_MIN_FREE_BYTES,
    retryAfterSeconds: config.STORE_RETRY_AFTER_SECONDS,
  };
}

/**
 * A copy of an upload kept while its form is still arriving, for the case where a field sent
 * after the file changes how the file must be read (server/rest/uploads/uploads.ts). Up to 256 KiB stay
 * in memory; past that everything goes to `<folder>/<pid>-<uuid>.spool` (mode 0600), written as
 * the upload streams in, so the upload slows to the disk's pace instead of piling up in memory.
 * The receiver caps what reaches it at MAX_UPLOAD_BYTES + 1. `remove()` deletes the file; a crash
 * leaves it to `clearStaleSpool` at the next start. Before its file is made and every 16 MiB after,
 * it looks at the free space left on the filesystem: below the place's reserve, or on ENOSPC, the
 * upload fails with 503 `storage_full` (and the file goes), so one upload cannot fill the disk the
 * database writes to.
 */
export class UploadSpool extends Writable {
  private memory: Buffer[] = [];
  private memoryBytes = 0;
  private file: FileHandle | null = null;
  private path: string | null = null;
  private removed = false;
  private spooled = 0;
  private nextRoomCheck = 0;

  constructor(private readonly place: SpoolPlace) {
    super({ highWaterMark: QUEUE_BYTES });
  }

  /** Everything written, from the start; only once the spool has finished. */
  reader(): Readable {
    if (!this.path) return Readable.from(this.memory);
    return createReadStream(this.path, { highWaterMark: QUEUE_BYTES });
  }

  /** Drops the copy; safe to call more than once and while a write is in flight. */
  async remove(): Promise<void> {
    this.removed = true;
    this.memory = [];
    this.destroy();
    await this.closeFile();
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, done: (err?: Error | null) => void): void {
    const buffers = chunks.map((c) => c.chunk);
    const size = buffers.reduce((n, b) => n + b.length, 0);
    if (!this.file && this.memoryBytes + size <= MEMORY_BYTES) {
      // Copies: a chunk is often a slice of a larger socket buffer it would keep alive.
      for (const b of buffers) this.memory.push(Buffer.from(b));
      this.memoryBytes += size;
      done();
      return;
    }
    this.toFile(buffers).then(() => done(), done);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this._writev([{ chunk }], done);
  }

  override _final(done: (err?: Error | null) => void): void {
    // Closing the handle here keeps no descriptor open while the form's last fields arrive.
    this.closeFile().then(() => done(), done);
  }

  private async toFile(buffers: Buffer[]): Promise<void> {
    const { folder } = this.place;
    if (!this.file) {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      await this.checkRoom();
      this.path = join(folder, `${process.pid}-${randomUUID()}${SUFFIX}`);
      this.file = await open(this.path, "wx", 0o600);
      if (this.removed) return this.closeFile();
      buffers = [...this.memory, ...buffers];
      this.memory = [];
    }
    if (this.spooled >= this.nextRoomCheck) await this.checkRoom();
    this.spooled += buffers.reduce((n, b) => n + b.length, 0);
    await writeAll(this.file, buffers).catch((err: NodeJS.ErrnoException) => {
      throw err.code === "ENOSPC" ? this.noRoom() : err;
    });
  }

  private async checkRoom(): Promise<void> {
    this.nextRoomCheck = this.spooled + ROOM_CHECK_BYTES;
    const fs = await statfs(this.place.folder);
    if (fs.bavail * fs.bsize < this.place.minFreeBytes) throw this.noRoom();
  }

  private noRoom() {
    const wait = this.place.retryAfterSeconds;
    return unavailable(
      `not enough free disk space to receive this upload now; retry after ${wait} seconds`,
      "storage_full",
      wait,
    );
  }

  private async closeFile(): Promise<void> {
    const file = this.file;
    this.file = null;
    await file?.close().catch(() => {});
    if (this.removed && this.path) await unlink(this.path).catch(() => {});
  }
}

async function writeAll(file: FileHandle, buffers: Buffer[]): Promise<void> {
  const pending = buffers;
  while (pending.length > 0) {
    let { bytesWritten } = await file.writev(pending);
    // A short write (rare on regular files) leaves a tail to write again.
    while (pending.length > 0 && bytesWritten >= pending[0]!.length) bytesWritten -= pending.shift()!.length;
    if (pending.length > 0 && bytesWritten > 0) pending[0] = pending[0]!.subarray(bytesWritten);
  }
}

/**
 * Deletes the spool files a crashed or killed run left behind: those of a process that is no
 * longer running, and those under this process's own id (left by an earlier run that had it, as
 * in a container where the service is always pid 1). Run once at start-up, before any upload.
 */
export async function clearStaleSpool(folder: string, logger: Logger): Promise<void> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  const stale = names.filter((name) => name.endsWith(SUFFIX) && isStale(Number(name.split("-")[0])));
  await Promise.all(stale.map((name) => unlink(join(folder, name)).catch(() => {})));
  if (stale.length > 0) logger.info({ folder, files: stale.length }, "removed stale upload spool files");
}

function isStale(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: the process exists under another user.
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}
