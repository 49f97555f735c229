// npm run bench -- search: GET /stamps?hash= with 1 M stamps stored, on SQLite and on PostgreSQL.
// The stamps are bulk-loaded by SQL into a migrated store (minutes through the API; seconds this
// way): ids time-ordered like ULIDs, one created_at a millisecond apart, a distinct sha256 digest
// each, except one digest in a thousand stamps ("hot": a document stamped over and over, so pages
// and cursors have something to walk). Then stampd runs on that store as it ships, in a process of
// its own, and one client sends searches one at a time: a stamped hash chosen at random (one
// match), the hot hash's first page (50 of 1000), a page of it from a cursor deep inside, and a
// hash never stamped. Latency is the client's, request to parsed body, over keep-alive; the same
// loop on GET /health gives the floor of an HTTP round trip on the machine at that moment.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { StampSearch } from "../server/stamps/stamp-search.js";
import { PostgresStore } from "../server/store/postgres/postgres-store.js";
import { SqliteStore } from "../server/store/sqlite/sqlite-store.js";
import type { Store } from "../server/store/store.js";
import { stop, tempDir } from "./lib/processes.js";
import { report, round, type Target } from "./lib/report.js";
import { positive } from "./lib/settings.js";
import { startStampdProcess } from "./lib/stampd-process.js";

const STAMPS = Math.round(positive("BENCH_SEARCH_STAMPS", 1_000_000));
/** Searches of each kind measured (after as many again to warm up), scaled by BENCH_SCALE. */
const PER_KIND = Math.max(20, Math.round(500 * positive("BENCH_SCALE", 1)));
const TARGET_MS = 10;
const HOT_EVERY = 1000;
const HOT_HASH = "f".repeat(64);
const MISSING_HASH = "e".repeat(64);
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

type Engine = "sqlite" | "postgres";

const dir = tempDir();
const rows: Record<string, string | number>[] = [];
const targets: Target[] = [];
try {
  for (const engine of ["sqlite", "postgres"] as const) {
    const loaded = await loadStore(engine);
    try {
      // First the search alone (StampSearch over the store, in this process), then through stampd.
      const store = await loaded.open();
      const search = new StampSearch(store.stamps);
      const query = await measure(engine, async (q) => {
        const page = await search.byHash({
          hash: { algorithm: "sha256", hex: q.hash },
          limit: 50,
          cursor: q.cursor,
        });
        return page.matches.length;
      });
      await store.close();
      const stampd = await startStampdProcess(join(dir.path, engine), loaded.env);
      try {
        const base = `http://127.0.0.1:${stampd.ready.http}`;
        const rest = await measure(engine, async (q) => {
          const cursor = q.cursor ? `&cursor=${q.cursor}` : "";
          const res = await fetch(`${base}/stamps?hash=sha256:${q.hash}${cursor}`);
          const body = (await res.json()) as { items?: unknown[] };
          if (res.status !== 200)
            throw new Error(`GET /stamps answered ${res.status}: ${JSON.stringify(body)}`);
          return body.items!.length;
        });
        // The floor of an HTTP round trip here, same loop: GET /health reads nothing of the store.
        const health = await measure(engine, async () => {
          const res = await fetch(`${base}/health`);
          await res.arrayBuffer();
          return 1;
        });
        const floor = Object.values(health).flat();
        rows.push(row(engine, "GET /health (baseline)", "all", floor, loaded.loadSeconds));
        const baseline = `GET /health: p50 ${round(percentile(floor, 0.5), 2)} ms, p99 ${round(percentile(floor, 0.99), 2)} ms`;
        record(engine, "StampSearch.byHash (store query)", query, loaded.loadSeconds);
        record(engine, "GET /stamps?hash= (HTTP round trip)", rest, loaded.loadSeconds, baseline);
      } finally {
        await stop(stampd.process);
      }
    } finally {
      await loaded.drop();
    }
  }
  report("search", {
    rows,
    targets,
    note: "one search at a time (HTTP over keep-alive); latency from call to parsed answer, in ms",
    stamps: STAMPS,
    perKind: PER_KIND,
  });
} finally {
  dir.cleanup();
}

/** A migrated store of `engine` holding STAMPS stamps; the environment that points stampd at it. */
async function loadStore(engine: Engine): Promise<{
  env: Record<string, string>;
  loadSeconds: number;
  open: () => Promise<Store>;
  drop: () => Promise<void>;
}> {
  const started = performance.now();
  if (engine === "sqlite") {
    mkdirSync(join(dir.path, engine), { recursive: true });
    const path = join(dir.path, engine, "stampd.db");
    const store = new SqliteStore(path);
    await store.migrate();
    store.db.exec(sqliteLoad(STAMPS));
    store.db.exec("ANALYZE");
    await store.close();
    const loadSeconds = round((performance.now() - started) / 1000, 1);
    return { env: {}, loadSeconds, open: async () => new SqliteStore(path), drop: async () => {} };
  }
  const schema = `stampd_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const store = new PostgresStore(url.toString());
  await store.migrate();
  await store.close();
  const loader = new pg.Client({ connectionString: url.toString() });
  await loader.connect();
  await loader.query(postgresLoad(STAMPS));
  await loader.query("VACUUM ANALYZE stamps");
  await loader.end();
  const loadSeconds = round((performance.now() - started) / 1000, 1);
  return {
    env: { DATABASE_URL: url.toString() },
    loadSeconds,
    open: async () => new PostgresStore(url.toString()),
    drop: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

// The stamps belong to one batch already sealed, so the proof pipeline leaves them alone (a batch
// of a million unsigned bench rows is not what is measured). Its root is then logged like any.
function batch(zeroRoot: string): string {
  return `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
  VALUES ('bat_bench', '2026-01-01T00:00:00.000Z', 1, ${zeroRoot}, '${"0".repeat(128)}', 'bench')`;
}

// Stamp i: id `stp_` + i in 26 digits (valid Crockford base 32, ordered like ULIDs), created i ms
// after 2026-01-01, a digest of its own (i in four 16-hex-digit words) unless it is a hot one.
function sqliteLoad(n: number): string {
  return `${batch("zeroblob(32)")};
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})
INSERT INTO stamps (id, account_id, identity_id, created_at, hash_algorithm, document_hash, status, stamp_json, batch_id)
SELECT printf('stp_%026d', i), NULL, NULL,
  strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + i / 1000.0, 'unixepoch'), 'sha256',
  CASE WHEN i % ${HOT_EVERY} = 0 THEN '${HOT_HASH}' ELSE printf('%016x%016x%016x%016x', i, i * 7, i * 13, i * 31) END,
  'confirmed', '{}', 'bat_bench'
FROM n`;
}

function postgresLoad(n: number): string {
  return `${batch("decode(repeat('00', 32), 'hex')")};
INSERT INTO stamps (id, account_id, identity_id, created_at, hash_algorithm, document_hash, status, stamp_json, batch_id)
SELECT 'stp_' || lpad(i::text, 26, '0'), NULL, NULL,
  timestamptz '2026-01-01T00:00:00Z' + i * interval '1 millisecond', 'sha256',
  CASE WHEN i % ${HOT_EVERY} = 0 THEN '${HOT_HASH}' ELSE md5(i::text) || md5((-i)::text) END,
  'confirmed', '{}', 'bat_bench'
FROM generate_series(1, ${n}) AS i`;
}

/** The digest the loader gave stamp i (not a hot one). */
function digestOf(engine: Engine, i: number): string {
  if (engine === "sqlite") {
    const word = (x: bigint) => x.toString(16).padStart(16, "0");
    const b = BigInt(i);
    return word(b) + word(b * 7n) + word(b * 13n) + word(b * 31n);
  }
  const md5 = (text: string) => createHash("md5").update(text).digest("hex");
  return md5(String(i)) + md5(String(-i));
}

/** A search as the benchmark sends it: a sha256 digest and maybe a cursor; resolves to the matches. */
type Search = (query: { hash: string; cursor?: string }) => Promise<number>;

/** Milliseconds of each kind of search, PER_KIND of each, after as many to warm up. */
async function measure(engine: Engine, search: Search): Promise<Record<string, number[]>> {
  const deepCursor = `stp_${String(Math.floor(STAMPS / 2)).padStart(26, "0")}`;
  const kinds: Record<string, () => { hash: string; cursor?: string }> = {
    "one match (random stamped hash)": () => {
      let i = 1 + Math.floor(Math.random() * STAMPS);
      if (i % HOT_EVERY === 0) i -= 1;
      return { hash: digestOf(engine, i) };
    },
    "hot hash, first page (50 of 1000)": () => ({ hash: HOT_HASH }),
    "hot hash, page from a deep cursor": () => ({ hash: HOT_HASH, cursor: deepCursor }),
    "never stamped": () => ({ hash: MISSING_HASH }),
  };
  const latencies: Record<string, number[]> = {};
  for (const [kind, query] of Object.entries(kinds)) {
    latencies[kind] = [];
    for (let i = 0; i < 2 * PER_KIND; i++) {
      const started = performance.now();
      const found = await search(query());
      const ms = performance.now() - started;
      if (kind !== "never stamped" && !found) throw new Error(`${kind}: no stamps found`);
      if (i >= PER_KIND) latencies[kind]!.push(ms);
    }
  }
  return latencies;
}

/** The rows of one way of searching on one engine, and its target. */
function record(
  engine: Engine,
  how: string,
  latencies: Record<string, number[]>,
  loadSeconds: number,
  baseline = "",
) {
  const all = Object.values(latencies).flat();
  for (const [kind, ms] of Object.entries(latencies)) rows.push(row(engine, how, kind, ms, loadSeconds));
  rows.push(row(engine, how, "all", all, loadSeconds));
  const p99 = percentile(all, 0.99);
  targets.push({
    what: `${how}, ${STAMPS.toLocaleString("en-US")} stamps, ${engine}: p99`,
    target: `< ${TARGET_MS} ms`,
    value: round(p99, 2),
    unit: "ms",
    stampd: `p50 ${round(percentile(all, 0.5), 2)} ms, ${all.length} searches`,
    baseline,
    met: p99 < TARGET_MS,
  });
}

function row(engine: Engine, how: string, kind: string, ms: number[], loadSeconds: number) {
  return {
    engine,
    via: how.split(" ")[0]!,
    search: kind,
    n: ms.length,
    "p50 ms": round(percentile(ms, 0.5), 2),
    "p99 ms": round(percentile(ms, 0.99), 2),
    "max ms": round(Math.max(...ms), 2),
    "load s": loadSeconds,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}
