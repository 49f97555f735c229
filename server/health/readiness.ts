import type { components } from "../../gen/openapi/types.js";

/**
 * `starting`: migrations and the first passes of the background jobs run; `ready`: serving;
 * `stopping`: a graceful shutdown began, in-flight work finishes.
 */
export type ReadinessPhase = "starting" | "ready" | "stopping";

/** What `GET /ready` answers: the phase, or `unavailable` while ready but a dependency fails. */
export type ReadyStatus = components["schemas"]["ReadyResponse"]["status"];
type Dependency = NonNullable<components["schemas"]["ReadyResponse"]["unavailable"]>[number];

/** The store's availability (server/store/store-availability.ts), as readiness reads it. */
export interface DependencyWatch {
  readonly unavailable: readonly Dependency[];
  watch(watcher: () => void): () => void;
}

type Watcher = (status: ReadyStatus) => void;

const order: Record<ReadinessPhase, number> = { starting: 0, ready: 1, stopping: 2 };

/**
 * Whether the service takes traffic: the one state behind `GET /ready`, grpc.health.v1 and
 * `svc.v1.StampService/HealthCheck`, so orchestrators see the same answer on every transport. The
 * phase only moves forward (a shutdown that begins during start-up is never undone by the start-up
 * finishing); once the store is known (`follow`), a ready instance whose store does not answer is
 * `unavailable`, and ready again as soon as it answers, so a load balancer stops routing to it
 * through an outage and comes back without a restart.
 */
export class Readiness {
  private current: ReadinessPhase = "starting";
  private readonly watchers = new Set<Watcher>();
  private dependencies: DependencyWatch | undefined;

  get phase(): ReadinessPhase {
    return this.current;
  }

  get status(): ReadyStatus {
    return this.current === "ready" && this.unavailable.length > 0 ? "unavailable" : this.current;
  }

  /** The dependencies that do not answer now (empty when all do). */
  get unavailable(): readonly Dependency[] {
    return this.dependencies?.unavailable ?? [];
  }

  get ready(): boolean {
    return this.status === "ready";
  }

  set(phase: ReadinessPhase): void {
    if (order[phase] <= order[this.current]) return;
    this.current = phase;
    this.notify();
  }

  /** Counts `dependencies` in from now on; returns a function that stops following them. */
  follow(dependencies: DependencyWatch): () => void {
    this.dependencies = dependencies;
    const stop = dependencies.watch(() => this.notify());
    this.notify();
    return stop;
  }

  /** Yields the current status, then every change, until `signal` aborts (pending changes first). */
  async *watch(signal: AbortSignal): AsyncGenerator<ReadyStatus> {
    const queue: ReadyStatus[] = [this.status];
    let wake: (() => void) | undefined;
    const watcher: Watcher = (status) => {
      queue.push(status);
      wake?.();
    };
    const onAbort = () => wake?.();
    this.watchers.add(watcher);
    signal.addEventListener("abort", onAbort);
    try {
      for (;;) {
        const next = queue.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        if (signal.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      this.watchers.delete(watcher);
      signal.removeEventListener("abort", onAbort);
    }
  }

  private notify(): void {
    const status = this.status;
    for (const w of this.watchers) w(status);
  }
}
