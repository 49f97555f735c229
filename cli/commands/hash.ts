import { type Command, Option } from "commander";
import { hashAlgorithms } from "../../core/content-hash.js";
import type { Schemas } from "../../sdk/src/index.js";
import { clientFor, print, type RemoteFlags, withRemoteOptions } from "../client.js";
import { fileSizes } from "../files.js";
import { hashLocally } from "../local-hash.js";
import { Progress, type ProgressFlags, progressShown, withProgressOptions } from "../progress.js";
import { UploadProgress } from "../upload-progress.js";

interface HashFlags extends RemoteFlags, ProgressFlags {
  algorithm: Schemas["HashAlgorithm"];
  local?: boolean;
}

async function hash(file: string, flags: HashFlags): Promise<void> {
  const [size] = await fileSizes([file]);
  const bar = new Progress(progressShown(flags), "bytes");
  bar.start(size!, file);
  let result: Schemas["HashResult"];
  try {
    result = flags.local
      ? await hashLocally(file, flags.algorithm, (n) => bar.advance(n))
      : await upload(file, size!, flags, bar);
  } finally {
    bar.stop();
  }
  // Like sha256sum: the digest, two spaces, the file.
  print(flags, result, () => `${result.hash}  ${file}`);
}

async function upload(file: string, size: number, flags: HashFlags, bar: Progress) {
  const progress = bar.shown ? new UploadProgress(bar) : undefined;
  progress?.begin(file, size);
  return clientFor(flags, { fetch: progress?.fetch }).hash.create({ file, algorithm: flags.algorithm });
}

export function registerHash(program: Command): void {
  const command = program
    .command("hash")
    .description("hash a file on the server (POST /hash; nothing is stored), or here with --local")
    .argument("<file>", "the document")
    .addOption(new Option("--algorithm <name>", "hash algorithm").choices(hashAlgorithms).default("sha3-256"))
    .option("--local", "hash on this machine instead (no network); prints the same result");
  withProgressOptions(withRemoteOptions(command)).action(hash);
}
