import { createHash, createPublicKey, verify } from "node:crypto";

/**
 * An independent reader of a C2SP tiled log over plain HTTP, written from the specifications
 * (tlog-tiles, tlog-checkpoint, signed-note, RFC 6962) with node:crypto only: it shares no code with
 * the server or the SDK, so it checks both. It reads every tile of a tree, checks each hash tile
 * against the level below, the leaf hashes against the entry bundles and the tree against the
 * signed checkpoint, and computes proofs from the leaves it read.
 */

const sha256 = (...parts: Buffer[]) => createHash("sha256").update(Buffer.concat(parts)).digest();
const leafHash = (entry: Buffer) => sha256(Buffer.of(0), entry);
const nodeHash = (l: Buffer, r: Buffer) => sha256(Buffer.of(1), l, r);

export interface ReadCheckpoint {
  origin: string;
  size: number;
  root: Buffer;
}

/** Checks a signed note against `<name>+<id>+<base64(0x01 ‖ key)>` and parses its checkpoint. */
export function checkNote(note: string, verifierKey: string): ReadCheckpoint {
  // name+id+key: the name holds no '+', the base64 key may.
  const name = verifierKey.slice(0, verifierKey.indexOf("+"));
  const id = verifierKey.slice(name.length + 1, name.length + 9);
  const key = verifierKey.slice(name.length + 10);
  const raw = Buffer.from(key, "base64").subarray(1);
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
  const publicKey = createPublicKey({ key: spki, format: "der", type: "spki" });
  const split = note.lastIndexOf("\n\n");
  const text = note.slice(0, split + 1);
  const line = note
    .slice(split + 2)
    .split("\n")
    .find((l) => l.startsWith(`\u2014 ${name} `));
  if (!line) throw new Error("no signature of the log key");
  const sig = Buffer.from(line.split(" ")[2]!, "base64");
  if (sig.subarray(0, 4).toString("hex") !== id) throw new Error("key id differs");
  if (!verify(null, Buffer.from(text), publicKey, sig.subarray(4)))
    throw new Error("bad checkpoint signature");
  const [origin, size, root] = text.split("\n") as [string, string, string];
  return { origin, size: Number(size), root: Buffer.from(root, "base64") };
}

/** `tile/<L>/<N>[.p/<W>]` as tlog-tiles writes it. */
export function pathOf(level: number | "entries", index: number, width: number): string {
  const digits = String(index)
    .padStart(3, "0")
    .padStart(Math.ceil(String(index).length / 3) * 3, "0");
  const groups = digits.match(/.{3}/g)!.map((g, i, all) => (i < all.length - 1 ? `x${g}` : g));
  return `tile/${level}/${groups.join("/")}${width < 256 ? `.p/${width}` : ""}`;
}

export class TileReader {
  /** Paths fetched, for tests that count what was read. */
  readonly fetched: string[] = [];

  /** Every entry read from an entry bundle, by index. */
  readonly entries = new Map<number, Buffer>();

  /**
   * `entrySize`: the byte length every entry must have (the transparency log's are 32-byte batch
   * roots); null for a log of entries of any length (the stamp log's hashedrekord bodies).
   */
  constructor(
    private readonly prefix: string,
    private readonly entrySize: number | null = 32,
  ) {}

  async get(path: string): Promise<Response> {
    this.fetched.push(path);
    return fetch(`${this.prefix}${path}`);
  }

  /** A tile of a tree of `size`: its partial form, or the full tile it was replaced by. */
  async tile(level: number | "entries", index: number, width: number): Promise<Buffer> {
    let res = await this.get(pathOf(level, index, width));
    if (res.status === 404 && width < 256) res = await this.get(pathOf(level, index, 256));
    if (res.status !== 200) throw new Error(`${pathOf(level, index, width)}: ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    return level === "entries" ? body : body.subarray(0, width * 32);
  }

  /**
   * Reads the whole tree of `checkpoint.size` from tiles and checks it: resolves its leaf hashes,
   * after every check has passed (throws naming the first failure otherwise).
   */
  async audit(checkpoint: ReadCheckpoint): Promise<Buffer[]> {
    const levels: Buffer[][] = [];
    for (let level = 0; Math.floor(checkpoint.size / 256 ** level) > 0; level++) {
      const count = Math.floor(checkpoint.size / 256 ** level);
      const hashes: Buffer[] = [];
      for (let index = 0; index * 256 < count; index++) {
        const width = Math.min(256, count - index * 256);
        const tile = await this.tile(level, index, width);
        if (tile.length !== width * 32) throw new Error(`tile ${level}/${index} is ${tile.length} bytes`);
        for (let i = 0; i < width; i++) hashes.push(tile.subarray(i * 32, i * 32 + 32));
        if (level === 0) await this.checkBundle(index, width, hashes.slice(index * 256, index * 256 + width));
      }
      if (level > 0) {
        hashes.forEach((hash, j) => {
          const below = levels[level - 1]!.slice(j * 256, j * 256 + 256);
          if (!perfectRoot(below).equals(hash))
            throw new Error(`level ${level} hash ${j} is not its subtree's`);
        });
      }
      levels.push(hashes);
    }
    const leaves = levels[0] ?? [];
    if (!mth(leaves, 0, leaves.length).equals(checkpoint.root))
      throw new Error(`the tiles of ${checkpoint.size} entries do not hash to the checkpoint's root`);
    return leaves;
  }

  private async checkBundle(index: number, width: number, hashes: Buffer[]): Promise<void> {
    const bundle = await this.tile("entries", index, width);
    for (let i = 0, at = 0; i < width; i++) {
      const length = bundle.readUInt16BE(at);
      if (this.entrySize !== null && length !== this.entrySize)
        throw new Error(`entry ${index * 256 + i} is ${length} bytes, not ${this.entrySize}`);
      const entry = bundle.subarray(at + 2, at + 2 + length);
      if (!leafHash(entry).equals(hashes[i]!))
        throw new Error(`entry ${index * 256 + i} does not hash to its leaf hash`);
      this.entries.set(index * 256 + i, entry);
      at += 2 + length;
    }
  }
}

function perfectRoot(hashes: Buffer[]): Buffer {
  let level = hashes;
  while (level.length > 1) level = level.flatMap((h, i) => (i % 2 ? [] : [nodeHash(h, level[i + 1]!)]));
  return level[0]!;
}

const largestPowerBelow = (n: number) => 2 ** Math.floor(Math.log2(n - 1));

/** Subtree hashes already computed, per leaf array: proofs over one tree share most of them. */
const memo = new WeakMap<Buffer[], Map<string, Buffer>>();

/** RFC 6962 MTH of leaves[start:end]. */
export function mth(leaves: Buffer[], start: number, end: number): Buffer {
  if (end === start) return sha256();
  if (end - start === 1) return leaves[start]!;
  const known = memo.get(leaves) ?? new Map<string, Buffer>();
  memo.set(leaves, known);
  const key = `${start}:${end}`;
  let hash = known.get(key);
  if (!hash) {
    const k = largestPowerBelow(end - start);
    hash = nodeHash(mth(leaves, start, start + k), mth(leaves, start + k, end));
    known.set(key, hash);
  }
  return hash;
}

/** RFC 6962 PATH(m, D[0:n]). */
export function inclusionPath(leaves: Buffer[], m: number, start: number, end: number): Buffer[] {
  if (end - start === 1) return [];
  const k = largestPowerBelow(end - start);
  return m < k
    ? [...inclusionPath(leaves, m, start, start + k), mth(leaves, start + k, end)]
    : [...inclusionPath(leaves, m - k, start + k, end), mth(leaves, start, start + k)];
}

/** RFC 6962 PROOF(m, D[0:n]). */
export function consistencyPath(leaves: Buffer[], m: number, n: number): Buffer[] {
  return m === 0 || m === n ? [] : subproof(leaves, m, 0, n, true);
}

function subproof(leaves: Buffer[], m: number, start: number, end: number, complete: boolean): Buffer[] {
  if (m === end - start) return complete ? [] : [mth(leaves, start, end)];
  const k = largestPowerBelow(end - start);
  return m <= k
    ? [...subproof(leaves, m, start, start + k, complete), mth(leaves, start + k, end)]
    : [...subproof(leaves, m - k, start + k, end, false), mth(leaves, start, start + k)];
}
