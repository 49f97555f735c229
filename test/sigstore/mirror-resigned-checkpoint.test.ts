import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../server/clock.js";
import { revokeKey, rotateKey } from "../../server/keys/key-rotation.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { getJson, type RingKey } from "./sigstore-js.js";

// When the log key is revoked, each log signs its latest checkpoint again with the active key,
// at the same tree size (checkpoints carry no time, so the revoked key's verify nowhere). The
// mirrors must hold the new signature too, though no tile changed.
describe("a checkpoint signed again after the log key's revocation", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-mirror-resigned-"));
  let svc: RunningService;
  const mirrored = (path: string) => readFileSync(join(dataDir, "mirror", path), "utf8");
  const served = async (path: string) => (await fetch(`${svc.baseUrl}${path}`)).text();

  beforeAll(async () => {
    svc = await startService({
      DATA_DIR: dataDir,
      RATE_LIMIT_ENABLED: "false",
      LOG_TILES_DIR: join(dataDir, "mirror"),
    });
  });
  afterAll(async () => {
    await svc?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("replaces the revoked key's in the mirror, for both logs", async () => {
    const stamp = await createStamp(svc, "logged before the log key's revocation\n");
    await svc.service.proofs.pipeline.tick();
    await getJson(svc.baseUrl, `/stamps/${stamp.stamp_id}/sigstore`);
    await svc.service.sigstore.mirroring.tick();
    const before = { log: mirrored("checkpoint"), stamps: mirrored("stamps/checkpoint") };
    expect(before.log).toBe(await served("/log/tiles/checkpoint"));
    expect(before.stamps).toBe(await served("/log/stamps/tiles/checkpoint"));

    const ports = {
      repo: svc.service.ctx.store.keyRing,
      atRest: svc.service.ctx.keys.atRest,
      clock: systemClock,
      overlapMs: 0,
    };
    const revoked = (await getJson<{ keys: RingKey[] }>(svc.baseUrl, "/keys")).keys.find(
      (k) => k.kind === "log" && k.state === "active",
    )!;
    await rotateKey(ports, "log");
    await revokeKey(ports, "log", revoked.key_id, { reason: "test" });
    await svc.service.ctx.keys.ring!.refresh();
    // Each log signs its checkpoint again: the pipeline's pass, and the stamp's bundle asked for again.
    await svc.service.proofs.pipeline.tick();
    await getJson(svc.baseUrl, `/stamps/${stamp.stamp_id}/sigstore`);
    await svc.service.sigstore.mirroring.tick();

    for (const [path, url, old] of [
      ["checkpoint", "/log/tiles/checkpoint", before.log],
      ["stamps/checkpoint", "/log/stamps/tiles/checkpoint", before.stamps],
    ] as const) {
      const now = await served(url);
      expect(now.split("\n").slice(0, 3), "the same tree").toEqual(old.split("\n").slice(0, 3));
      expect(now, "signed again").not.toBe(old);
      expect(mirrored(path), path).toBe(now);
    }
  });
});
