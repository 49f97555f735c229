import { mkdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { buffer, text } from "node:stream/consumers";
import { bundleName } from "./bundle-file.js";
import { UsageError } from "./errors.js";

/**
 * The size of each file, checked before anything is sent: a missing file or one that is not a
 * regular file is a usage error, so a run over several files never stops half way for a typo.
 */
export async function fileSizes(paths: string[]): Promise<number[]> {
  return Promise.all(
    paths.map(async (path) => {
      const info = await stat(path).catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read ${path}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
      });
      if (!info.isFile()) throw new UsageError(`cannot read ${path}: not a file`);
      return info.size;
    }),
  );
}

export const total = (sizes: number[]): number => sizes.reduce((a, b) => a + b, 0);

/**
 * Where `--out` saves each document's proof bundle: the path itself when it names one `.json`
 * file for one document, else `<dir>/<file name>.stampd.json` in the directory it names (two
 * files of the same name would overwrite one another: refused).
 */
export async function bundlePaths(
  paths: string[],
  out: string,
  nameOf: (document: string) => string = bundleName,
): Promise<string[]> {
  const single = paths.length === 1 && out.endsWith(".json");
  const dir = single ? dirname(out) : out;
  const names = single ? [basename(out)] : paths.map(nameOf);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new UsageError(`two files would be saved as ${join(dir, twice)}: stamp them separately`);
  await mkdir(dir, { recursive: true }).catch((err: Error) => {
    throw new UsageError(`cannot create ${dir}: ${err.message}`);
  });
  return names.map((name) => join(dir, name));
}

/** A file's bytes, or standard input's for `-`. */
export async function readInput(path: string): Promise<Buffer> {
  if (path === "-") return buffer(process.stdin);
  return readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${path}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  });
}

/** A value given as text, or read from standard input for `-` (one line, trimmed). */
export async function valueOrStdin(value: string): Promise<string> {
  return value === "-" ? (await text(process.stdin)).trim() : value;
}
