/** Serving status shared by grpc.health.v1 and svc.v1.StampService/HealthCheck. */
export type ServingStatus = "serving" | "not_serving";

type Watcher = (status: ServingStatus) => void;

/**
 * Whether the service is serving. It flips to not_serving once, at the start of a graceful shutdown,
 * so orchestrators stop routing new calls while in-flight ones finish.
 */
export class ServingState {
  private current: ServingStatus = "serving";
  private readonly watchers = new Set<Watcher>();

  get status(): ServingStatus {
    return this.current;
  }

  set(status: ServingStatus): void {
    if (status === this.current) return;
    this.current = status;
    for (const w of this.watchers) w(status);
  }

  /** Yields the current status, then every change, until `signal` aborts (pending changes first). */
  async *watch(signal: AbortSignal): AsyncGenerator<ServingStatus> {
    const queue: ServingStatus[] = [this.current];
    let wake: (() => void) | undefined;
    const watcher: Watcher = (s) => {
      queue.push(s);
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
