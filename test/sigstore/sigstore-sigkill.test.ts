import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerProcess } from "../helpers/server-process.js";
import { createSchema, type TestSchema } from "../store/postgres.js";
import {
  askBundle,
  auditAfterFault,
  type BundleAnswer,
  type Stamped,
  stampDocument,
  untilSealed,
} from "./fault-answers.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const STAMPS = 40;

/** What a process killed mid-request leaves its clients: a refused or reset connection. */
const orDropped = (answer: Promise<BundleAnswer>) => answer.catch(() => undefined);

/**
 * A server process killed with SIGKILL while first-time bundle requests append to the stamp log
 * (the entries and their checkpoint are written in steps: a kill can land between any two), then
 * started again on the same store: every stamp's bundle verifies, the stamp log holds each stamp
 * once, its checkpoint covers every entry, and the independent tile reader audits it; a bundle
 * answered before the kill names the entry the log holds.
 */
describe.each([
  ["SQLite", false],
  ["PostgreSQL", true],
])("Sigstore bundles after SIGKILL during appends, %s", (_, postgres) => {
  let schema: TestSchema | undefined;
  let dataDir: string;
  const running: ServerProcess[] = [];

  afterAll(async () => {
    for (const server of running) await server.stop("SIGKILL");
    await schema?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("restarts with each stamp logged once, every bundle verifying", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "stampd-sigstore-kill-"));
    schema = postgres ? await createSchema() : undefined;
    const env = {
      DATA_DIR: dataDir,
      RATE_LIMIT_ENABLED: "false",
      BATCH_INTERVAL_MS: "200",
      ...(schema ? { DATABASE_URL: schema.url } : {}),
    };
    const first = await ServerProcess.start(env);
    running.push(first);
    const stamps: Stamped[] = [];
    for (let i = 0; i < STAMPS; i++) stamps.push(await stampDocument(first.baseUrl));
    await untilSealed(first.baseUrl, stamps);
    // A first bundle, so that the kill meets appends rather than the first request's start-up.
    const warm = await askBundle(first.baseUrl, stamps[0]!.id);
    expect(warm.status).toBe(200);

    let bundled = 0;
    const asked = Promise.all(
      stamps.slice(1).map(async (stamp, i) => {
        await sleep(i * 25);
        const answer = await orDropped(askBundle(first.baseUrl, stamp.id));
        if (answer?.status === 200) bundled++;
        return answer;
      }),
    );
    // Killed once a few bundles are answered, with the later requests still arriving.
    while (bundled < 3) await sleep(10);
    expect(await first.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    const before = (await asked).filter((a): a is BundleAnswer => a?.status === 200);
    // Some appends were answered, and some requests were cut off by the kill.
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(STAMPS - 1);

    const second = await ServerProcess.start(env);
    running.push(second);
    await auditAfterFault(second.baseUrl, stamps, [warm, ...before]);
    expect(second.logs.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  }, 120_000);
});
