import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../../server/store/postgres/postgres-store.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createSchema, type TestSchema } from "../store/postgres.js";
import { auditAgainstApi, batchId, insertSqliteBatches } from "./tile-audit.js";
import { checkNote, pathOf, TileReader } from "./tile-reader.js";

// Sizes the log grows through: one entry, partial and full level-0 tiles, the first level-1 tile,
// level-2 (65 536 = 256²) and past it. Batches are inserted straight into the store (a batch per
// entry through the HTTP path would take minutes); everything is then read over HTTP.
const SIZES = [1, 2, 255, 256, 257, 1000, 65_535, 65_536, 65_537, 70_000];

interface Engine {
  name: string;
  env(): Promise<Record<string, string>>;
  insertBatches(svc: RunningService, from: number, to: number): Promise<void>;
  drop(): Promise<void>;
}

let schema: TestSchema | undefined;
const engines: Engine[] = [
  {
    name: "sqlite",
    env: async () => ({}),
    insertBatches: insertSqliteBatches,
    drop: async () => {},
  },
  {
    name: "postgres",
    env: async () => {
      schema = await createSchema();
      return { DATABASE_URL: schema.url };
    },
    async insertBatches(svc, from, to) {
      const { pool } = svc.service.ctx.store as PostgresStore;
      const ids = Array.from({ length: to - from }, (_, i) => batchId(from + i));
      await pool.query(
        `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
         SELECT id, '2026-03-01T12:00:00Z', 1, root, 'test', 'test' FROM unnest($1::text[], $2::bytea[]) AS b (id, root)`,
        [ids, ids.map(() => randomBytes(32))],
      );
    },
    drop: async () => schema?.drop(),
  },
];

describe.each(engines)("the log as C2SP tiles on $name", (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-tiles-"));
  const mirrorDir = join(dataDir, "mirror");
  let env: Record<string, string>;
  let svc: RunningService;
  let mirror: Server;
  let verifierKey: string;
  /** The checkpoints signed on the way, by size. */
  const notes = new Map<number, string>();

  const start = async () => {
    svc = await startService({ ...env, DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" });
  };
  const grow = async (to: number) => {
    const size = (await latest()).size;
    await engine.insertBatches(svc, size, to);
    await svc.service.proofs.pipeline.tick();
    const note = await (await fetch(`${svc.baseUrl}/log/tiles/checkpoint`)).text();
    notes.set(to, note);
    return checkNote(note, verifierKey);
  };
  const latest = async () =>
    checkNote(await (await fetch(`${svc.baseUrl}/log/tiles/checkpoint`)).text(), verifierKey);

  beforeAll(async () => {
    env = { ...(await engine.env()), LOG_TILES_DIR: mirrorDir };
    await start();
    verifierKey = ((await (await fetch(`${svc.baseUrl}/log`)).json()) as { verifier_key: string })
      .verifier_key;
    mirror = await serveFolder(mirrorDir);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    mirror?.close();
    await engine.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves every tile of every size it grows through, matching its checkpoint, entries and proofs", async () => {
    const reader = new TileReader(`${svc.baseUrl}/log/tiles/`);
    for (const size of SIZES) {
      const checkpoint = await grow(size);
      expect(checkpoint.size).toBe(size);
      await auditAgainstApi(svc, reader, checkpoint, notes, verifierKey);
    }
    // A reader holding an older checkpoint still verifies it: its partial tiles were replaced by
    // full ones, which it reads instead.
    await reader.audit(checkNote(notes.get(257)!, verifierKey));
    expect(reader.fetched).toContain(pathOf(0, 1, 1));
    expect(reader.fetched).toContain(pathOf(0, 1, 256));
  }, 300_000);

  it("answers the tile grammar with caching headers: immutable tiles, a short-lived checkpoint", async () => {
    const tile = await fetch(`${svc.baseUrl}/log/tiles/${pathOf(1, 1, 17)}`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(tile.headers.get("content-type")).toBe("application/octet-stream");
    expect((await tile.arrayBuffer()).byteLength).toBe(17 * 32);
    const checkpoint = await fetch(`${svc.baseUrl}/log/tiles/checkpoint`);
    expect(checkpoint.headers.get("cache-control")).toBe("public, max-age=5");
    expect((await fetch(`${svc.baseUrl}/log/tiles/tile/0/x001/000`)).status).toBe(404);
    expect((await fetch(`${svc.baseUrl}/log/tiles/tile/0/000.p/300`)).status).toBe(404);
    expect((await fetch(`${svc.baseUrl}/log/tiles/tile/0/x000/001`)).status).toBe(404);
  });

  it("mirrors the tiles into LOG_TILES_DIR, which a plain file server serves verifiably", async () => {
    const reader = new TileReader(`http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`);
    const note = await (await reader.get("checkpoint")).text();
    expect(note).toBe(notes.get(70_000));
    await auditAgainstApi(svc, reader, checkNote(note, verifierKey), notes, verifierKey);
    // Partial tiles replaced by full ones are gone from the folder too.
    expect(readdirSync(join(mirrorDir, "tile/0"))).not.toContain("000.p");
  }, 120_000);

  it("keeps serving and mirroring the same log across a restart, mending what a crash left", async () => {
    await svc.close();
    // A crash mid-write leaves a stray temporary file; a lost tile stands for a mirror gone stale.
    writeFileSync(join(mirrorDir, ".tmp", "half-written"), randomBytes(100));
    rmSync(join(mirrorDir, pathOf(0, 3, 256)));
    await start();
    const reader = new TileReader(`${svc.baseUrl}/log/tiles/`);
    await auditAgainstApi(svc, reader, await latest(), notes, verifierKey);
    expect(readdirSync(join(mirrorDir, ".tmp"))).toEqual([]);
    const grown = await grow(70_001);
    await auditAgainstApi(svc, reader, grown, notes, verifierKey);
    const mirrorReader = new TileReader(`http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`);
    await auditAgainstApi(
      svc,
      mirrorReader,
      checkNote(await (await mirrorReader.get("checkpoint")).text(), verifierKey),
      notes,
      verifierKey,
    );
  }, 120_000);
});

/** A plain static file server: the folder's files by path, 404 otherwise. */
async function serveFolder(dir: string): Promise<Server> {
  mkdirSync(dir, { recursive: true });
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url!, "http://x").pathname)).replace(/^\/+/, "");
    readFile(join(dir, path)).then(
      (data) => res.writeHead(200, { "content-type": "application/octet-stream" }).end(data),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
