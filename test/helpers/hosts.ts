import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { components } from "../../gen/openapi/types.js";
import { createSchema, type TestSchema } from "../store/postgres.js";
import { type RunningService, startService } from "./service.js";

/**
 * What a test of several hosts of one deployment makes (PostgreSQL schemas, DATA_DIR folders,
 * in-process instances), undone in reverse order by `close()` (call it in afterEach).
 */
export class Hosts {
  private cleanup: (() => Promise<void>)[] = [];

  /** A fresh PostgreSQL schema, dropped on close. */
  async schema(): Promise<TestSchema> {
    const created = await createSchema();
    this.cleanup.push(() => created.drop());
    return created;
  }

  /** A fresh folder (a host's DATA_DIR), removed on close. */
  folder(): string {
    const dir = mkdtempSync(join(tmpdir(), "stampd-host-"));
    this.cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** An instance in this process, without rate limits, stopped on close. */
  async instance(env: Record<string, string>): Promise<RunningService> {
    const svc = await startService({ RATE_LIMIT_ENABLED: "false", ...env });
    this.cleanup.push(() => svc.close());
    return svc;
  }

  /** Runs `step` on close, before what was made earlier is undone. */
  onClose(step: () => Promise<void>): void {
    this.cleanup.push(step);
  }

  async close(): Promise<void> {
    for (const step of this.cleanup.splice(0).reverse()) await step();
  }
}

/** The deployment's key ring as `GET /keys` publishes it. */
export async function publishedRing(baseUrl: string): Promise<components["schemas"]["RingKey"][]> {
  return ((await (await fetch(`${baseUrl}/keys`)).json()) as components["schemas"]["KeyRing"]).keys;
}
