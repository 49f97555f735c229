import { describe, expect, it } from "vitest";
import { type CrashStore, postgresStore, sqliteStore } from "./crash-database.js";
import { CrashRun } from "./crash-run.js";
import { seedFromEnv } from "./seeded-random.js";

// Issue 14's bar: 20 consecutive kills on each store. CRASH_ITERATIONS changes it; CRASH_SEED
// replays a run's kill moments (what the load is doing at each depends on the machine's timing).
const iterations = Number(process.env.CRASH_ITERATIONS ?? 20);
const seed = seedFromEnv();

const stores: [string, () => Promise<CrashStore>][] = [
  ["SQLite", sqliteStore],
  ["PostgreSQL", postgresStore],
];

describe.each(stores)("SIGKILL in the middle of stamping and heartbeats, on %s", (name, open) => {
  it(
    `keeps everything acknowledged, ${iterations} kills in a row`,
    async () => {
      console.log(`crash test on ${name}: seed ${seed} (CRASH_SEED=${seed} replays it)`);
      const store = await open();
      const run = new CrashRun(store, seed);
      try {
        await run.setUp();
        for (let i = 0; i < iterations; i++) {
          const problems = await run.iteration(i, i === iterations - 1);
          expect(problems, `iteration ${i + 1} of ${iterations} (seed ${seed})`).toEqual([]);
        }
        expect(await run.finish(), `after the last restart (seed ${seed})`).toEqual([]);
        const grpc = [...run.ledger.stamps.values()].filter((s) => s.via === "grpc").length;
        console.log(
          `${name}: ${run.ledger.stamps.size} acknowledged stamps (${grpc} by gRPC), ` +
            `${[...run.ledger.vaults.values()].reduce((n, v) => n + v.acked, 0)} heartbeats, ` +
            `${run.ledger.sleepers.size} vaults lapsed while down; all intact after ${iterations} kills`,
        );
      } finally {
        await run.close();
        await store.drop();
      }
    },
    // A few seconds per kill, plus the wait for the lapsing vaults' 60-second deadline.
    120_000 + iterations * 20_000,
  );
});
