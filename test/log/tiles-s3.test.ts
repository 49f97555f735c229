import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { mirrorRetryDelay } from "../../server/log/tile-mirror.js";
import { S3Bucket } from "../helpers/s3-bucket.js";
import { type RunningService, startService } from "../helpers/service.js";
import { auditAgainstApi, insertSqliteBatches } from "./tile-audit.js";
import { checkNote, pathOf, TileReader } from "./tile-reader.js";

// The bucket mirror reads its tiles from the store's tile repository, which test/log/tiles.test.ts
// runs on both engines; here the store is SQLite and the subject is the bucket.
const PREFIX = "stampd/log/";

/** A service mirroring into `bucket` (path-style, under PREFIX), its secret in a 0600 file. */
function s3Env(dataDir: string, bucket: S3Bucket, secret: string): Record<string, string> {
  const secretFile = join(dataDir, "s3-secret");
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  return { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false", ...bucket.mirrorEnv(PREFIX, secretFile) };
}

/** Grows a service's log to `to` entries with one pipeline pass; resolves the checkpoint it serves. */
async function grow(svc: RunningService, to: number): Promise<string> {
  const size = Number((await checkpointOf(`${svc.baseUrl}/log/tiles/`)).split("\n")[1]);
  await insertSqliteBatches(svc, size, to);
  await svc.service.proofs.pipeline.tick();
  return checkpointOf(`${svc.baseUrl}/log/tiles/`);
}

async function checkpointOf(prefix: string): Promise<string> {
  const res = await fetch(`${prefix}checkpoint`);
  return res.status === 200 ? res.text() : "";
}

describe("the tiled log mirrored into an S3-compatible bucket", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-tiles-s3-"));
  const bucket = new S3Bucket(join(dataDir, "s3rver"), "stampd-log");
  let env: Record<string, string>;
  let svc: RunningService;
  let verifierKey: string;
  const notes = new Map<number, string>();
  /** The tiled log as the bucket serves it to anyone: plain unauthenticated GETs, path-style. */
  const bucketReader = () => new TileReader(bucket.url(PREFIX));

  beforeAll(async () => {
    await bucket.start();
    env = s3Env(dataDir, bucket, "not-the-real-secret");
    svc = await startService(env);
    verifierKey = ((await (await fetch(`${svc.baseUrl}/log`)).json()) as { verifier_key: string })
      .verifier_key;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await bucket.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("holds every size the log grows through, verifiable from the bucket alone like the API's tiles", async () => {
    for (const size of [1, 2, 255, 256, 257, 1000, 65_536, 70_000]) {
      const note = await grow(svc, size);
      notes.set(size, note);
      // The checkpoint object is the API's, written after its tiles: whoever reads it finds them.
      expect(await checkpointOf(bucket.url(PREFIX))).toBe(note);
      await auditAgainstApi(svc, bucketReader(), checkNote(note, verifierKey), notes, verifierKey);
    }
    // A reader holding an older checkpoint still verifies it: the bucket's full tiles replaced the
    // partial ones, which are deleted.
    const reader = bucketReader();
    await reader.audit(checkNote(notes.get(257)!, verifierKey));
    expect(reader.fetched).toContain(pathOf(0, 1, 256));
    expect((await fetch(bucket.url(`${PREFIX}${pathOf(0, 0, 1)}`))).status).toBe(404);
    expect((await fetch(bucket.url(`${PREFIX}${pathOf("entries", 0, 255)}`))).status).toBe(404);
  }, 300_000);

  it("gives each object the Content-Type and Cache-Control the API serves it with", async () => {
    for (const path of ["checkpoint", pathOf(0, 17, 256), pathOf(1, 1, 17), pathOf("entries", 273, 112)]) {
      const [fromApi, fromBucket] = await Promise.all([
        fetch(`${svc.baseUrl}/log/tiles/${path}`),
        fetch(bucket.url(`${PREFIX}${path}`)),
      ]);
      expect(fromBucket.status, path).toBe(200);
      expect(fromBucket.headers.get("content-type"), path).toBe(fromApi.headers.get("content-type"));
      expect(fromBucket.headers.get("cache-control"), path).toBe(fromApi.headers.get("cache-control"));
      expect(Buffer.from(await fromBucket.arrayBuffer())).toEqual(Buffer.from(await fromApi.arrayBuffer()));
    }
    expect((await fetch(bucket.url(`${PREFIX}checkpoint`))).headers.get("cache-control")).toBe(
      "public, max-age=5",
    );
  });

  it("after a restart, puts back only the objects the bucket lost (found by listing it), not the whole log", async () => {
    await svc.close();
    const lost = [pathOf(0, 3, 256), pathOf("entries", 200, 256), pathOf(1, 1, 17)];
    for (const path of lost)
      expect((await fetch(bucket.url(`${PREFIX}${path}`), { method: "DELETE" })).status).toBe(204);
    bucket.puts.length = 0;
    svc = await startService(env);
    const note = await grow(svc, 70_001);
    notes.set(70_001, note);
    const written = bucket.puts.map((key) => key.slice(PREFIX.length));
    expect(written).toEqual(expect.arrayContaining([...lost, "checkpoint"]));
    // The lost objects, the growth's few tiles (four levels' edges and a bundle) and the checkpoint.
    expect(written.length).toBeLessThan(12);
    expect(written.at(-1)).toBe("checkpoint");
    expect(await checkpointOf(bucket.url(PREFIX))).toBe(note);
    await auditAgainstApi(svc, bucketReader(), checkNote(note, verifierKey), notes, verifierKey);
  }, 120_000);
});

describe("an unreachable bucket", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-tiles-s3-down-"));
  const bucket = new S3Bucket(join(dataDir, "s3rver"), "stampd-log");
  const folder = join(dataDir, "mirror");
  const secret = `secret-${randomBytes(16).toString("hex")}`;
  const clock = new ManualClock();
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
  let svc: RunningService;
  let verifierKey: string;

  const mirrorErrors = () =>
    lines
      .map((line) => JSON.parse(line) as { msg: string; mirror?: string; retryInSeconds?: number })
      .filter((entry) => entry.msg.startsWith("log tiles: mirroring failed"));

  beforeAll(async () => {
    await bucket.start();
    // The folder mirror alongside: it goes on while the bucket is down.
    svc = await startService({ ...s3Env(dataDir, bucket, secret), LOG_TILES_DIR: folder }, { clock, logger });
    verifierKey = ((await (await fetch(`${svc.baseUrl}/log`)).json()) as { verifier_key: string })
      .verifier_key;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await bucket.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("never stops the log, is logged once per retry delay, and is caught up when it returns", async () => {
    const before = await grow(svc, 10);
    expect(await checkpointOf(bucket.url(PREFIX))).toBe(before);

    await bucket.stop();
    for (const size of [20, 300, 600]) {
      const note = await grow(svc, size);
      expect(checkNote(note, verifierKey).size).toBe(size);
      expect(readFileSync(join(folder, "checkpoint"), "utf8")).toBe(note);
    }
    // Three passes failed to reach the bucket; one line says so, and when it is tried again.
    expect(mirrorErrors()).toEqual([
      expect.objectContaining({
        mirror: `s3://stampd-log/${PREFIX}`,
        retryInSeconds: mirrorRetryDelay(1) / 1000,
      }),
    ]);
    clock.advance(mirrorRetryDelay(1));
    await svc.service.proofs.pipeline.tick();
    expect(mirrorErrors()).toHaveLength(2);
    expect(mirrorErrors()[1]!.retryInSeconds).toBe(mirrorRetryDelay(2) / 1000);

    await bucket.start();
    await svc.service.proofs.pipeline.tick();
    expect(await checkpointOf(bucket.url(PREFIX)), "left alone until its retry delay has passed").toBe(
      before,
    );
    clock.advance(mirrorRetryDelay(2));
    const latest = await grow(svc, 700);
    expect(await checkpointOf(bucket.url(PREFIX))).toBe(latest);
    await new TileReader(bucket.url(PREFIX)).audit(checkNote(latest, verifierKey));
    expect(lines.filter((line) => line.includes("log tiles: mirror caught up"))).toHaveLength(1);
    expect(mirrorErrors()).toHaveLength(2);
    expect(lines.join("\n")).not.toContain(secret);
  }, 60_000);
});
