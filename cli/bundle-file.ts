import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type ProofBundle, ProofBundleError, parseProofBundle } from "../sdk/src/bundle/bundle.js";
import { fetchProofBundle } from "../sdk/src/bundle/fetch-bundle.js";
import type { StampdClient } from "../sdk/src/client.js";
import type { Schemas } from "../sdk/src/index.js";
import { UsageError } from "./errors.js";

/** The name of a document's proof bundle: `<file name>.stampd.json`. */
export const bundleName = (document: string): string => `${basename(document)}.stampd.json`;

/** A proof bundle file; one that cannot be read or is not a bundle is a usage error. */
export async function readBundleFile(path: string): Promise<ProofBundle> {
  const text = await readFile(path, "utf8").catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${path}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  });
  try {
    return parseProofBundle(text);
  } catch (err) {
    if (err instanceof ProofBundleError) throw new UsageError(`${path}: ${err.message}`);
    throw err;
  }
}

/**
 * Writes a bundle atomically: to a temporary file beside it, then renamed over it, so a crash or a
 * full disk mid-write leaves the previous bundle whole, never half of the new one.
 */
export async function writeBundleFile(path: string, bundle: ProofBundle): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, `${JSON.stringify(bundle, null, 2)}\n`, { flag: "wx" });
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/**
 * Gathers the stamp's proof bundle from the server (`fetchProofBundle`) and writes it to `path`;
 * `stamp`, the stamp as just read, spares reading it again.
 */
export async function saveBundle(
  client: StampdClient,
  stampId: string,
  path: string,
  serviceUrl: string,
  stamp?: Schemas["StampResponse"],
) {
  await writeBundleFile(path, await fetchProofBundle(client, stampId, { serviceUrl, stamp }));
}
