import type { Clock } from "../clock.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Signer } from "../keys/ed25519.js";
import type { DeploymentKeyRing } from "../keys/key-ring.js";
import { vouchedSigner } from "../keys/vouched-signer.js";
import { signedBy, signedCheckpoint } from "../log/checkpoint-signer.js";
import type { StoredCheckpoint } from "../log/log-repository.js";
import type { LogTiles } from "../log/log-tiles.js";
import { LogTree } from "../log/log-tree.js";
import type {
  NewOutsideTimestamp,
  OutsideTimestamp,
  StampLogEntry,
  StampLogRepository,
} from "./stamp-log-repository.js";

/** A stamp's entry with a signed checkpoint that covers it and its inclusion proof there. */
export interface LoggedStamp extends StampLogEntry {
  checkpoint: StoredCheckpoint;
  inclusionProof: Uint8Array[];
}

/**
 * The stamp log (docs/sigstore.md): an RFC 6962 log whose entries are the `hashedrekord` bodies of
 * stamps, with C2SP checkpoints signed by the log key under its own origin, which is what a
 * Sigstore bundle's `tlogEntries` prove inclusion in. A stamp is appended when its bundle is first
 * asked for: the entries of the requests that arrive while an append runs go in the next one,
 * with one checkpoint each. The store holds the entries; each process mirrors their leaf hashes in
 * a LogTree and catches up before proving, so any instance proves any entry.
 */
export class StampLog {
  private readonly tree = new LogTree();
  private catchingUp: Promise<void> = Promise.resolve();
  private queued: { stampId: string; body: Uint8Array }[] = [];
  private appended: Promise<void> = Promise.resolve();
  private nextAppend: Promise<void> | undefined;

  constructor(
    private readonly repo: StampLogRepository,
    private readonly signer: Signer,
    readonly origin: string,
    private readonly clock: Clock,
    /** The stamp log as C2SP tiles, written before a checkpoint of their size is signed. */
    readonly tiles: LogTiles,
    /** The key ring, which must vouch for the log key before a checkpoint is signed with it. */
    private readonly ring?: Pick<DeploymentKeyRing, "vouches">,
  ) {}

  /**
   * The stamp's entry, appending `body()` as the stamp's entry first when the log does not hold it
   * (an entry another instance appended first is the one answered), with its inclusion proof in
   * a checkpoint that covers it.
   */
  async entry(stampId: string, body: () => Uint8Array): Promise<LoggedStamp> {
    let entry = await this.repo.entryOf(stampId);
    if (!entry) {
      await this.append(stampId, body());
      entry = await this.repo.entryOf(stampId);
      if (!entry) throw new Error(`stamp ${stampId} is not in the stamp log after its append`);
    }
    let checkpoint = await this.repo.latestCheckpoint();
    if (!checkpoint || checkpoint.treeSize <= entry.index) checkpoint = await this.sign();
    else checkpoint = await this.signedByVouchedKey(checkpoint);
    if (checkpoint.treeSize > this.tree.size) await this.catchUp();
    const inclusionProof = this.tree.inclusionProof(entry.index, checkpoint.treeSize);
    return { ...entry, checkpoint, inclusionProof };
  }

  /**
   * Keeps `token` as the outside TSA's token of the stamp's entry unless it has one (the first
   * kept stays the bundle's); resolves the one kept.
   */
  keepOutsideTimestamp(stampId: string, token: NewOutsideTimestamp): Promise<OutsideTimestamp> {
    return this.repo.saveOutsideTimestamp(stampId, token, this.clock.now());
  }

  /** The chains (PEM, leaf first) of every outside TSA certificate that signed a kept token. */
  outsideTsaChains(): Promise<string[]> {
    return this.repo.outsideTsaChains();
  }

  /** The latest signed checkpoint (signing the empty log's on first use). */
  async checkpoint(): Promise<StoredCheckpoint> {
    return (await this.repo.latestCheckpoint()) ?? this.sign();
  }

  /** Queues the entry for the next append, which begins when the running one ends. */
  private append(stampId: string, body: Uint8Array): Promise<void> {
    this.queued.push({ stampId, body });
    if (!this.nextAppend) {
      const next = this.appended.then(() => {
        this.nextAppend = undefined;
        // A stamp asked for twice during one append is appended once.
        const seen = new Set<string>();
        const entries = this.queued
          .filter((e) => !seen.has(e.stampId) && seen.add(e.stampId))
          .map((e) => ({ ...e, leafHash: merkle.leafHash(e.body) }));
        this.queued = [];
        return this.appendAndSign(entries);
      });
      this.nextAppend = next;
      // A failed append (store down) fails its callers, not the next one.
      this.appended = next.catch(() => {});
    }
    return this.nextAppend;
  }

  private async appendAndSign(entries: Parameters<StampLogRepository["append"]>[0]): Promise<void> {
    await this.repo.append(entries, this.clock.now());
    await this.sign();
  }

  /** Signs a checkpoint of the log as stored now and stores it; resolves the latest stored. */
  private async sign(): Promise<StoredCheckpoint> {
    await this.catchUp();
    // The size whose tiles are written is the one signed: another request's catch-up may grow the
    // tree meanwhile, and its own tile write may fail (the store going away), so signing the
    // tree's size by then could save a checkpoint whose tiles nobody wrote.
    const size = this.tree.size;
    await this.tiles.extend(this.tree, (await this.repo.latestCheckpoint())?.treeSize ?? 0, size);
    const { signer, at } = await vouchedSigner(this.ring, "log", this.signer, this.clock);
    await this.repo.saveCheckpoint(signedCheckpoint(signer, this.origin, this.tree, size, at));
    return (await this.repo.latestCheckpoint())!;
  }

  /**
   * `checkpoint`, or the same tree signed again when the log key the ring vouches for now did not
   * sign it: a checkpoint carries no time, so a revoked log key's verify nowhere (the trusted root
   * leaves that key out), and the bundles of a log that stopped growing must verify all the same.
   */
  private async signedByVouchedKey(checkpoint: StoredCheckpoint): Promise<StoredCheckpoint> {
    const { signer, at } = await vouchedSigner(this.ring, "log", this.signer, this.clock);
    if (signedBy(checkpoint.note, signer, this.origin)) return checkpoint;
    if (checkpoint.treeSize > this.tree.size) await this.catchUp();
    const again = signedCheckpoint(signer, this.origin, this.tree, checkpoint.treeSize, at);
    await this.repo.replaceCheckpoint(again);
    return again;
  }

  /** Loads the leaf hashes appended since the last catch-up; concurrent calls run one after another. */
  private catchUp(): Promise<void> {
    const run = this.catchingUp.then(async () => {
      for (const leafHash of await this.repo.leafHashesFrom(this.tree.size)) this.tree.append(leafHash);
    });
    this.catchingUp = run.catch(() => {});
    return run;
  }
}
