import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogForkError, LogMonitor } from "../../core/log-monitor.js";
import { httpTileSource, TiledLog } from "../../core/tiled-log.js";
import { tiledCheckpoint, verifyStampInTiles } from "../../core/tiled-log-checks.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "../cli/run-stampd.js";
import type { RunningService } from "../helpers/service.js";
import { getJson, stampHash, startProofService } from "../proofs/helpers.js";

/**
 * A split view: two services sign with one log key under one origin but hold different entries,
 * as a log showing one history to some clients and another to others would. Each log is sound on
 * its own; only comparing their checkpoints shows the fork.
 */
let honest: Awaited<ReturnType<typeof startProofService>>;
let forked: Awaited<ReturnType<typeof startProofService>>;
let verifierKey: string;
const tiles = (svc: RunningService) => `${svc.baseUrl}/log/tiles/`;

const grow = async (running: typeof honest, entries: number) => {
  const stamps = [];
  for (let i = 0; i < entries; i++) {
    stamps.push(await stampHash(running.svc));
    await running.tick();
  }
  return stamps;
};

const dirs: string[] = [];
beforeAll(async () => {
  // The fork is a copy of the deployment taken while its log was empty: the same key ring (log key
  // and at-rest key) under the same origin, growing apart from there on.
  const env = { LOG_ORIGIN: "log.stampd.test/fork" };
  const first = mkdtempSync(join(tmpdir(), "stampd-fork-"));
  const copy = mkdtempSync(join(tmpdir(), "stampd-fork-"));
  dirs.push(first, copy);
  await (await startProofService({ ...env, DATA_DIR: first })).svc.close();
  cpSync(first, copy, { recursive: true });
  honest = await startProofService({ ...env, DATA_DIR: first });
  forked = await startProofService({ ...env, DATA_DIR: copy });
  verifierKey = (await getJson<{ verifier_key: string }>(honest.svc, "/log")).verifier_key;
  expect((await getJson<{ verifier_key: string }>(forked.svc, "/log")).verifier_key).toBe(verifierKey);
}, 60_000);
afterAll(async () => {
  await honest?.svc.close();
  await forked?.svc.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("monitoring a tiled log", () => {
  it("verifies a stamp's inclusion from its batch proof and the tiles alone", async () => {
    const [stamp] = await grow(honest, 3);
    const { stamp_json } = await getJson<{ stamp_json: never }>(honest.svc, `/stamps/${stamp!.id}`);
    const proof = await getJson<never>(honest.svc, `/stamps/${stamp!.id}/proof`);
    const log = new TiledLog(httpTileSource(tiles(honest.svc)));
    const check = await verifyStampInTiles(stamp_json, proof, log, { trustedLogKeys: [verifierKey] });
    expect(check).toMatchObject({ valid: true, log: "valid", failures: [] });
    // Another stamp's proof does not fit this entry.
    const other = {
      ...(proof as object),
      batch: { ...(proof as { batch: object }).batch, root: "00".repeat(32) },
    };
    const refused = await verifyStampInTiles(stamp_json, other as never, log, {
      trustedLogKeys: [verifierKey],
    });
    expect(refused.valid).toBe(false);
  });

  it("follows a growing log, then reports a fork with both signed checkpoints", async () => {
    const monitor = new LogMonitor([verifierKey]);
    const honestLog = new TiledLog(httpTileSource(tiles(honest.svc)));
    await monitor.poll(honestLog);
    await grow(honest, 2);
    expect((await monitor.poll(honestLog)).fresh).toBe(true);
    expect(monitor.checkpoints.map((c) => c.checkpoint.treeSize)).toEqual([3, 5]);

    await grow(forked, 7);
    const forkedLog = new TiledLog(httpTileSource(tiles(forked.svc)));
    const { note: forkedNote } = await tiledCheckpoint(forkedLog, [verifierKey]);
    const error = await monitor.poll(forkedLog).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogForkError);
    const { evidence } = error as LogForkError;
    expect(evidence.older).toBe(monitor.checkpoints[1]!.note);
    expect(evidence.newer).toBe(forkedNote);
  });

  it(
    "stampd log monitor and log inclusion --tiles: a sound log passes, a fork exits 1 with the evidence",
    async () => {
      const key = ["--log-key", verifierKey];
      const sound = await runStampd(["log", "monitor", tiles(honest.svc), "--count", "1", ...key]);
      expect(sound).toMatchObject({ code: 0 });
      expect(sound.out).toMatch(/checkpoint of 5 entries/);

      const inclusion = await runStampd(["log", "inclusion", "4", "--tiles", tiles(honest.svc), ...key]);
      expect(inclusion.code).toBe(0);
      expect(inclusion.out).toMatch(
        /entry 4 \(batch root [0-9a-f]{64}\) is in the tiled log of 5 entries: verified/,
      );

      const fork = await runStampd([
        "log",
        "monitor",
        tiles(honest.svc),
        tiles(forked.svc),
        "--count",
        "1",
        ...key,
        ...serverArgs(honest.svc),
      ]);
      expect(fork.code).toBe(1);
      const evidence = JSON.parse(fork.out.slice(fork.out.indexOf("{\n"))).fork;
      expect(evidence.older).toMatch(/^log\.stampd\.test\/fork\n5\n/);
      expect(evidence.newer).toMatch(/^log\.stampd\.test\/fork\n7\n/);
      expect(fork.err).toMatch(/fork: the tree of 7 entries does not extend the tree of 5/);
    },
    SPAWNS_TIMEOUT,
  );
});
