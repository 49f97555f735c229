import type { components } from "../../gen/openapi/types.js";
import type { Logger } from "../logger.js";

type HealthResponse = components["schemas"]["HealthResponse"];
export type Checks = NonNullable<HealthResponse["checks"]>;
export type CheckResult = components["schemas"]["HealthCheckResult"];
export type HealthStatus = Exclude<HealthResponse["status"], "starting">;

export interface HealthReport {
  status: HealthStatus;
  /** Each check's name and outcome only: never an error message, a host or a stack trace. */
  checks: Checks;
}

/** A dependency that has not answered within this long counts as failed. */
export const CHECK_TIMEOUT_MS = 2000;

export interface HealthSources {
  /** `availability`: what the store's own calls found failing (a full disk, which a ping does not see). */
  store: { ping(): Promise<void>; availability?: { readonly unavailable: readonly string[] } };
  /** Only when Redis is configured: the event bus and the rate-limit store reach it. */
  redis?: () => Promise<void>;
  /** Only when a tile mirror is configured: whether its last copy succeeded. */
  mirror?: () => boolean;
  batcher: { alive(): boolean };
  scheduler: { alive(): boolean };
}

/**
 * /health's checks. Without the store nothing works (`down`); without Redis, a tile mirror, the
 * batcher or the vault scheduler the service still answers, with something missing (`degraded`):
 * events do not cross instances, the mirrored log falls behind, stamps stop being sealed,
 * deadlines stop being applied. Failures are logged
 * with their cause, for operators; the report names the check only.
 */
export class HealthChecks {
  constructor(
    private readonly sources: HealthSources,
    private readonly logger: Logger,
  ) {}

  async report(): Promise<HealthReport> {
    const { store, redis, mirror, batcher, scheduler } = this.sources;
    const [storeOk, redisOk] = await Promise.all([
      this.reachable("store", () => store.ping()),
      redis && this.reachable("redis", redis),
    ]);
    const storeWorks = storeOk && (store.availability?.unavailable.length ?? 0) === 0;
    const checks: Checks = {
      store: result(storeWorks),
      ...(redisOk === undefined ? {} : { redis: result(redisOk) }),
      ...(mirror ? { mirror: result(mirror()) } : {}),
      batcher: result(batcher.alive()),
      scheduler: result(scheduler.alive()),
    };
    return { status: statusOf(checks, storeOk), checks };
  }

  private async reachable(name: keyof Checks, ping: () => Promise<void>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
        CHECK_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([ping(), timeout]);
      return true;
    } catch (err) {
      this.logger.warn({ err, check: name }, "health check failed");
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

const result = (ok: boolean): CheckResult => (ok ? "ok" : "fail");

/** `down` when the store does not answer; a store that answers but cannot write is `degraded`. */
function statusOf(checks: Checks, storeAnswers: boolean): HealthStatus {
  if (!storeAnswers) return "down";
  return Object.values(checks).includes("fail") ? "degraded" : "ok";
}
