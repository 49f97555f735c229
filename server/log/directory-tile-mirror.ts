import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { TileMirror } from "./tile-mirror.js";

/**
 * The tiled log in a folder, laid out as served (`checkpoint`, `tile/…`), for a static web server
 * or a CDN origin. Each file is written to `.tmp/` inside the folder (same file system), flushed,
 * renamed over its path and the folder flushed: a crash leaves the old file or the new one whole,
 * and at worst a stray file in `.tmp/`, which recover() deletes at the next start.
 */
export class DirectoryTileMirror implements TileMirror {
  constructor(private readonly dir: string) {}

  get name(): string {
    return this.dir;
  }

  async recover(): Promise<void> {
    await rm(this.temporaryDir, { recursive: true, force: true });
    await this.makeFolder(this.temporaryDir);
  }

  async missing(paths: readonly string[]): Promise<string[]> {
    const held = await Promise.all(
      paths.map((path) =>
        stat(join(this.dir, path)).then(
          () => true,
          () => false,
        ),
      ),
    );
    return paths.filter((_, i) => !held[i]);
  }

  async write(path: string, data: Uint8Array): Promise<void> {
    const target = join(this.dir, path);
    await this.makeFolder(dirname(target));
    const temporary = join(this.temporaryDir, randomBytes(8).toString("hex"));
    try {
      const file = await open(temporary, "wx", 0o644);
      try {
        await file.writeFile(data);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, target);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
    await syncDirectory(dirname(target));
  }

  // Another instance mirroring into the same folder may have written a larger tree's already.
  async writeCheckpoint(note: string, treeSize: number): Promise<void> {
    const current = await readFile(join(this.dir, "checkpoint"), "utf8").catch(() => "");
    if (Number(current.split("\n")[1] ?? -1) > treeSize) return;
    await this.write("checkpoint", new TextEncoder().encode(note));
  }

  async removePartials(fullTilePath: string): Promise<void> {
    await rm(join(this.dir, `${fullTilePath}.p`), { recursive: true, force: true });
  }

  /**
   * mkdir -p that reports why it failed: Node's recursive mkdir answers ENOENT on a read-only file
   * system, which would send an operator looking for a missing folder; the mirror's own folder
   * then says EROFS (or EACCES) instead.
   */
  private async makeFolder(path: string): Promise<void> {
    try {
      await mkdir(path, { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") await access(this.dir, constants.W_OK);
      throw err;
    }
  }

  private get temporaryDir(): string {
    return join(this.dir, ".tmp");
  }
}

/** fsync of a folder, so the rename in it survives a power loss. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
