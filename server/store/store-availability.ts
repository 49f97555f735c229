/**
 * What of the store does not answer now: `store` (PostgreSQL, or the SQLite file, cannot be
 * reached or does not answer in time) or `storage` (the disk under the SQLite file is full).
 * Named as `GET /ready`'s `unavailable` lists them (specs/openapi.yaml, ReadyResponse).
 */
export type StoreDependency = "store" | "storage";

/** How often a failing dependency is probed until it answers again. */
const PROBE_INTERVAL_MS = 1000;

/**
 * The one place a store records that a dependency stopped answering, and finds out by itself when
 * it answers again: readiness (`GET /ready`, gRPC health) reads it, so a load balancer stops routing
 * to an instance whose database is down and routes to it again once it is back, without a restart
 * and without waiting for a client's request to find out.
 *
 * A store calls `failed` where it translates a driver's error into `unavailable`, with a probe (a
 * trivial query, a small write) that resolves once the dependency works; the probe runs every
 * second until it does. A success the store sees meanwhile (`answered`) clears it at once.
 */
export class StoreAvailability {
  private readonly failing = new Map<StoreDependency, NodeJS.Timeout>();
  private readonly watchers = new Set<() => void>();

  /** The dependencies failing now, in a stable order (empty when all answer). */
  get unavailable(): StoreDependency[] {
    return (["store", "storage"] as const).filter((d) => this.failing.has(d));
  }

  failed(dependency: StoreDependency, probe: () => Promise<void>): void {
    if (this.failing.has(dependency)) return;
    let probing = false;
    const timer = setInterval(() => {
      if (probing) return;
      probing = true;
      probe()
        .then(
          () => this.answered(dependency),
          () => {},
        )
        .finally(() => {
          probing = false;
        });
    }, PROBE_INTERVAL_MS);
    timer.unref();
    this.failing.set(dependency, timer);
    this.notify();
  }

  answered(dependency: StoreDependency): void {
    const timer = this.failing.get(dependency);
    if (!timer) return;
    clearInterval(timer);
    this.failing.delete(dependency);
    this.notify();
  }

  /** Calls `watcher` on every change of `unavailable`; returns a function that stops it. */
  watch(watcher: () => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Stops the probes (the store closes). */
  stop(): void {
    for (const timer of this.failing.values()) clearInterval(timer);
    this.failing.clear();
  }

  private notify(): void {
    for (const w of this.watchers) w();
  }
}
