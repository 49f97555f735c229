import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { mirrorRetryDelay } from "../../server/log/tile-mirror.js";
import { connectClient, sha256 } from "../grpc/fixture.js";
import { S3Bucket } from "../helpers/s3-bucket.js";
import { type RunningService, startService } from "../helpers/service.js";
import { getJson } from "./sigstore-js.js";

// The stamp log's mirrors fail and recover as the transparency log's (test/log/tiles-s3.test.ts):
// the bucket goes away while stamps enter the stamp log; bundles are still answered, the folder
// mirror goes on, the failure is logged once per retry delay, and the bucket is caught up after it.
const PREFIX = "stampd/log/";

describe("the stamp log's bucket mirror unreachable", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-stamp-log-mirror-down-"));
  const bucket = new S3Bucket(join(dataDir, "s3rver"), "stampd-log");
  const folder = join(dataDir, "mirror");
  const clock = new ManualClock();
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
  let svc: RunningService;
  let stampIds: string[];
  let logged = 0;

  const stampLogMirrorLines = (msg: string) =>
    lines
      .map(
        (line) =>
          JSON.parse(line) as { msg: string; component?: string; mirror?: string; retryInSeconds?: number },
      )
      .filter((entry) => entry.component === "stamp-log-tiles" && entry.msg.startsWith(msg));
  const served = async () => (await fetch(`${svc.baseUrl}/log/stamps/tiles/checkpoint`)).text();
  const inBucket = async () => {
    const res = await fetch(bucket.url(`${PREFIX}stamps/checkpoint`));
    return res.status === 200 ? res.text() : "";
  };
  /** The next `n` stamps into the stamp log (their bundles asked for), then one mirroring pass. */
  const log = async (n: number) => {
    for (const id of stampIds.slice(logged, logged + n)) await getJson(svc.baseUrl, `/stamps/${id}/sigstore`);
    logged += n;
    await svc.service.sigstore.mirroring.tick();
    return served();
  };

  beforeAll(async () => {
    await bucket.start();
    const secretFile = join(dataDir, "s3-secret");
    writeFileSync(secretFile, "not-the-real-secret\n", { mode: 0o600 });
    svc = await startService(
      {
        DATA_DIR: dataDir,
        RATE_LIMIT_ENABLED: "false",
        LOG_TILES_DIR: folder,
        ...bucket.mirrorEnv(PREFIX, secretFile),
      },
      { clock, logger },
    );
    const items = Array.from({ length: 20 }, (_, i) => ({ contentHash: sha256(`lease ${i}\n`) }));
    stampIds = (await connectClient(svc).batchStamp({ items })).stamps.map((s) => s.id);
    await svc.service.proofs.pipeline.tick();
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await bucket.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("never holds up a bundle, is retried on its delay while the log does not grow, and is caught up", async () => {
    const before = await log(2);
    expect(await inBucket()).toBe(before);

    await bucket.stop();
    for (const n of [1, 3, 5]) {
      const note = await log(n);
      expect(Number(note.split("\n")[1])).toBe(logged);
      expect(readFileSync(join(folder, "stamps", "checkpoint"), "utf8")).toBe(note);
    }
    expect(stampLogMirrorLines("log tiles: mirroring failed")).toEqual([
      expect.objectContaining({
        mirror: `s3://stampd-log/${PREFIX}stamps/`,
        retryInSeconds: mirrorRetryDelay(1) / 1000,
      }),
    ]);
    const health = await (await fetch(`${svc.baseUrl}/health`)).json();
    expect(health).toMatchObject({ status: "degraded", checks: { mirror: "fail", store: "ok" } });

    // The log does not grow: the loop alone tries the bucket again once the delay has passed.
    clock.advance(mirrorRetryDelay(1));
    await svc.service.sigstore.mirroring.tick();
    expect(stampLogMirrorLines("log tiles: mirroring failed")).toHaveLength(2);

    await bucket.start();
    await svc.service.sigstore.mirroring.tick();
    expect(await inBucket(), "left alone until its retry delay has passed").toBe(before);
    clock.advance(mirrorRetryDelay(2));
    await svc.service.sigstore.mirroring.tick();
    expect(await inBucket()).toBe(await served());
    expect(stampLogMirrorLines("log tiles: mirror caught up")).toHaveLength(1);
    expect(await (await fetch(`${svc.baseUrl}/health`)).json()).toMatchObject({ checks: { mirror: "ok" } });
  }, 60_000);
});
