/**
 * Per-vault turns within one process. Heartbeats of one vault are read-check-writes conditional on
 * the version read, so N of them at once would mostly find the vault changed and read again (N²
 * attempts). Taking turns per vault id makes them land one after another; only writers of other
 * instances (or a scheduler claim) can still make an attempt stale, and those are few.
 */
export class VaultLocks {
  /** The promise each vault's last queued holder resolves when it is done. */
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `work` once every listed vault is free, holding them until it settles. Ids are taken in
   * sorted order, so two batches naming the same vaults in different orders cannot wait on each
   * other.
   */
  async with<T>(vaultIds: readonly string[], work: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    try {
      for (const id of [...new Set(vaultIds)].sort()) releases.push(await this.acquire(id));
      return await work();
    } finally {
      for (const release of releases) release();
    }
  }

  private async acquire(id: string): Promise<() => void> {
    const previous = this.tails.get(id);
    let release!: () => void;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = (previous ?? Promise.resolve()).then(() => done);
    this.tails.set(id, tail);
    await previous;
    return () => {
      release();
      // The last holder forgets the vault, so the map holds only vaults in use.
      if (this.tails.get(id) === tail) this.tails.delete(id);
    };
  }
}
