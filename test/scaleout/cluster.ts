import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { deleteKeys, redisUrl, uniquePrefix } from "../helpers/redis.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createSchema, type TestSchema } from "../store/postgres.js";

/**
 * Several stampd instances on one machine, as an operator runs them behind one address: one
 * PostgreSQL schema, one Redis with one prefix, one keys folder (DATA_DIR), one public base URL,
 * each instance on its own ports.
 */
export class Cluster {
  private constructor(
    readonly instances: RunningService[],
    private readonly schema: TestSchema,
    private readonly prefix: string,
    private readonly dataDir: string,
  ) {}

  static async start(size: number, env: Record<string, string> = {}, clock?: Clock): Promise<Cluster> {
    const schema = await createSchema();
    const prefix = uniquePrefix();
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-cluster-"));
    const shared = {
      DATABASE_URL: schema.url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      DATA_DIR: dataDir,
      SERVICE_BASE_URL: "https://stampd.example",
      ...env,
    };
    const cluster = new Cluster([], schema, prefix, dataDir);
    try {
      // One after another, as a rolling start would: the first creates the key files and the tables.
      for (let i = 0; i < size; i++) cluster.instances.push(await startService(shared, { clock }));
    } catch (err) {
      await cluster.close();
      throw err;
    }
    return cluster;
  }

  /** The DATABASE_URL every instance uses (its schema), to inspect what they stored. */
  get databaseUrl(): string {
    return this.schema.url;
  }

  async close(): Promise<void> {
    for (const instance of this.instances) await instance.close();
    await this.schema.drop();
    await deleteKeys(redisUrl, this.prefix);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Every event an instance's bus delivers to its listeners (its own and the other instances'). */
export function recordEvents(instance: RunningService): AnyDomainEvent[] {
  const seen: AnyDomainEvent[] = [];
  instance.service.ctx.events.subscribe((event) => seen.push(event));
  return seen;
}

/** How often each id appears. */
export function tally(ids: readonly (string | undefined)[]): Map<string | undefined, number> {
  const counts = new Map<string | undefined, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}
