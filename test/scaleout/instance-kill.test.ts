import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerProcess } from "../helpers/server-process.js";
import { createSchema, type TestSchema } from "../store/postgres.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One of two instances SIGKILLed under load, as a host dies behind a load balancer: the clients
 * retry each document on the other instance (a connection error or a 503 moves them), and every
 * stamp either instance acknowledged is stored and served by the survivor.
 */
describe("SIGKILL of one of two instances on PostgreSQL under load", () => {
  let schema: TestSchema;
  let dataDir: string;
  const instances: ServerProcess[] = [];

  beforeAll(async () => {
    schema = await createSchema();
    dataDir = mkdtempSync(join(tmpdir(), "stampd-kill-"));
    const env = {
      DATABASE_URL: schema.url,
      DATA_DIR: dataDir,
      RATE_LIMIT_ENABLED: "false",
      SERVICE_BASE_URL: "https://stampd.example",
    };
    instances.push(await ServerProcess.start(env));
    instances.push(await ServerProcess.start(env));
    // A first stamp on each, so the load meets warm instances (lazy imports, the hashing set-up).
    for (const instance of instances) {
      const form = new FormData();
      form.set("file", new Blob(["warm-up"]), "warm-up.txt");
      const res = await fetch(`${instance.baseUrl}/stamps`, { method: "POST", body: form });
      expect(res.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop("SIGKILL");
    await schema?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps every acknowledged stamp, and each client's documents are all stamped on the survivor", async () => {
    const [victim, survivor] = instances as [ServerProcess, ServerProcess];
    const acknowledged = new Map<string, ServerProcess>();
    let unstamped = 0;
    let moved = 0;
    let stopped = false;

    /** Stamps one document, moving to the other instance on a connection error or a 503. */
    const stampSomewhere = async (first: number): Promise<void> => {
      const document = randomBytes(32);
      for (let attempt = 0; attempt < 6; attempt++) {
        const instance = instances[(first + attempt) % 2]!;
        const form = new FormData();
        form.set("file", new Blob([document]), "doc.bin");
        const res = await fetch(`${instance.baseUrl}/stamps`, { method: "POST", body: form }).catch(
          () => undefined,
        );
        if (res?.status === 201) {
          acknowledged.set(((await res.json()) as { stamp_id: string }).stamp_id, instance);
          return;
        }
        await res?.arrayBuffer();
        expect(res === undefined || res.status === 503).toBe(true);
        moved++;
      }
      unstamped++;
    };

    const clients = Array.from({ length: 6 }, async (_, client) => {
      for (let n = 0; !stopped; n++) await stampSomewhere(client + n);
    });
    await sleep(1500);
    const killedAt = acknowledged.size;
    await victim.stop("SIGKILL");
    await sleep(1500);
    stopped = true;
    await Promise.all(clients);

    expect(unstamped).toBe(0);
    expect(moved).toBeGreaterThan(0);
    expect(killedAt).toBeGreaterThan(10);
    expect(acknowledged.size).toBeGreaterThan(killedAt);
    expect([...acknowledged.values()].filter((i) => i === victim).length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const id of acknowledged.keys()) {
      const res = await fetch(`${survivor.baseUrl}/stamps/${id}`);
      await res.arrayBuffer();
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
    }
    expect(missing).toEqual([]);
  }, 90_000);
});
