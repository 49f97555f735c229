import { hexToBytes } from "@noble/hashes/utils.js";
import { checkpointText, signatureLine, verifierKey, verifyCheckpoint } from "../../core/checkpoint.js";
import type { Clock } from "../clock.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Signer } from "../keys/ed25519.js";
import type { DeploymentKeyRing } from "../keys/key-ring.js";
import { vouchedSigner } from "../keys/vouched-signer.js";
import type { LogRepository, StoredCheckpoint } from "./log-repository.js";
import type { LogTiles } from "./log-tiles.js";
import { LogTree } from "./log-tree.js";

const encoder = new TextEncoder();
const publicKeyBytes = (signer: Signer): Uint8Array => hexToBytes(signer.publicKey.slice("ed25519:".length));

/** Log leaf hash of a batch root: RFC 6962 leaf over the root's 32 bytes. */
export const rootLeafHash = (root: Uint8Array): Uint8Array => merkle.leafHash(root);

/**
 * stampd's append-only transparency log (RFC 6962 over batch roots) with C2SP checkpoints signed
 * by the service key under the name `origin`. The store holds the entries; each process mirrors
 * them in a LogTree and catches up before answering, so any instance serves any checkpoint.
 */
export class TransparencyLog {
  private readonly tree = new LogTree();
  private readonly batchIds: string[] = [];
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: LogRepository,
    private readonly signer: Signer,
    readonly origin: string,
    private readonly clock: Clock,
    /** The log as C2SP tiles (docs/log-tiles.md). */
    readonly tiles: LogTiles,
    /** The key ring, which must vouch for the log key before a checkpoint is signed with it. */
    private readonly ring?: Pick<DeploymentKeyRing, "vouches">,
  ) {}

  /** The key clients pin: `<origin>+<key id>+<base64 key>`. */
  get verifierKey(): string {
    return verifierKey(this.origin, publicKeyBytes(this.signer));
  }

  get publicKey(): string {
    return this.signer.publicKey;
  }

  /**
   * Appends the batches sealed since the last call and signs a checkpoint of the new size, after
   * writing its tiles (so the tiled log never serves a checkpoint without them); then mirrors them.
   */
  async sequence(): Promise<StoredCheckpoint> {
    await this.repo.appendSealed(this.clock.now(), rootLeafHash);
    await this.catchUp();
    // The size whose tiles are written is the one signed: a proof request's catch-up may grow the
    // tree meanwhile, past what any instance wrote tiles for (a batch appended and not signed).
    const size = this.tree.size;
    const latest = await this.repo.latestCheckpoint();
    await this.tiles.extend(this.tree, latest?.treeSize ?? 0, size);
    let checkpoint = latest;
    if (!checkpoint || checkpoint.treeSize < size) {
      checkpoint = await this.sign(size);
      await this.repo.saveCheckpoint(checkpoint);
    } else if (this.ring && !(await this.signedByActiveKey(checkpoint))) {
      // Signed by a log key revoked since: checkpoints carry no time, so none of that key's
      // verify any more; the latest is signed again with the active key, not left until the log grows.
      checkpoint = await this.sign(checkpoint.treeSize);
      await this.repo.replaceCheckpoint(checkpoint);
    }
    await this.tiles.mirrorTo(checkpoint);
    return checkpoint;
  }

  /** The latest signed checkpoint (signing the empty log's on first use). */
  async checkpoint(): Promise<StoredCheckpoint> {
    return (await this.repo.latestCheckpoint()) ?? this.sequence();
  }

  async inclusion(index: number, treeSize: number) {
    await this.reach(treeSize);
    const proof = this.tree.inclusionProof(index, treeSize);
    return { leafHash: this.tree.leaf(index), batchId: this.batchIds[index]!, proof };
  }

  async consistency(first: number, second: number) {
    await this.reach(second);
    const proof = this.tree.consistencyProof(first, second);
    return { firstRoot: this.tree.root(first), secondRoot: this.tree.root(second), proof };
  }

  /** Catches up when `size` is beyond what this process has seen (another instance appended). */
  private async reach(size: number): Promise<void> {
    if (size > this.tree.size) await this.catchUp();
  }

  /** Loads the entries appended since the last catch-up; concurrent calls run one after another. */
  private catchUp(): Promise<void> {
    const run = this.catchingUp.then(async () => {
      for (const entry of await this.repo.entriesFrom(this.tree.size)) {
        this.tree.append(entry.leafHash);
        this.batchIds.push(entry.batchId);
      }
    });
    // A failed catch-up (store down) must not block the next one.
    this.catchingUp = run.catch(() => {});
    return run;
  }

  /** The checkpoint of `treeSize`, signed with a log key the ring vouches for. */
  private async sign(treeSize: number): Promise<StoredCheckpoint> {
    const { signer, at } = await vouchedSigner(this.ring, "log", this.signer, this.clock);
    const root = this.tree.root(treeSize);
    const text = checkpointText({ origin: this.origin, treeSize, rootHash: root });
    const signature = hexToBytes(signer.sign(encoder.encode(text)));
    const note = `${text}\n${signatureLine(this.origin, publicKeyBytes(signer), signature)}`;
    return { treeSize, root, note, signedAt: at };
  }

  /** Whether `checkpoint` carries the signature of the log key the ring vouches for now. */
  private async signedByActiveKey(checkpoint: StoredCheckpoint): Promise<boolean> {
    const { signer } = await vouchedSigner(this.ring, "log", this.signer, this.clock);
    try {
      await verifyCheckpoint(checkpoint.note, [verifierKey(this.origin, publicKeyBytes(signer))]);
      return true;
    } catch {
      return false;
    }
  }
}
