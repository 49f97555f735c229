/**
 * `starting`: migrations and the first passes of the background jobs run; `ready`: serving;
 * `stopping`: a graceful shutdown began, in-flight work finishes.
 */
export type ReadinessPhase = "starting" | "ready" | "stopping";

type Watcher = (phase: ReadinessPhase) => void;

const order: Record<ReadinessPhase, number> = { starting: 0, ready: 1, stopping: 2 };

/**
 * Whether the service takes traffic: the one state behind `GET /ready`, grpc.health.v1 and
 * `svc.v1.StampService/HealthCheck`, so orchestrators see the same answer on every transport. It
 * only moves forward (a shutdown that begins during start-up is never undone by the start-up
 * finishing).
 */
export class Readiness {
  private current: ReadinessPhase = "starting";
  private readonly watchers = new Set<Watcher>();

  get phase(): ReadinessPhase {
    return this.current;
  }

  get ready(): boolean {
    return this.current === "ready";
  }

  set(phase: ReadinessPhase): void {
    if (order[phase] <= order[this.current]) return;
    this.current = phase;
    for (const w of this.watchers) w(phase);
  }

  /** Yields the current phase, then every change, until `signal` aborts (pending changes first). */
  async *watch(signal: AbortSignal): AsyncGenerator<ReadinessPhase> {
    const queue: ReadinessPhase[] = [this.current];
    let wake: (() => void) | undefined;
    const watcher: Watcher = (phase) => {
      queue.push(phase);
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
}
