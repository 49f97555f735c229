import { afterEach, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../core/checkpoint.js";
import { ringVerifierKeys } from "../../core/key-ring.js";
import type { components } from "../../gen/openapi/types.js";
import { publishedKey } from "../../server/keys/key-ring.js";
import { Hosts } from "../helpers/hosts.js";
import type { RunningService } from "../helpers/service.js";
import { stampdCli } from "../helpers/stampd-cli.js";
import { postStamp } from "../stamps/helpers.js";

/**
 * What the proof pipeline publishes after a revocation (issue #35 item 2): a batch signature and a
 * checkpoint are signed only with keys the ring vouches for, read when they are signed, not with
 * the keys the instance last read up to KEY_RING_REFRESH_SECONDS before.
 */

type RingKey = components["schemas"]["RingKey"];

const hosts = new Hosts();
afterEach(() => hosts.close());

// The ring re-read only hourly and the pipeline ticked by hand: only the check before signing can
// keep a revoked key out of what is sealed and logged.
const env = () => ({
  DATA_DIR: hosts.folder(),
  KEY_RING_REFRESH_SECONDS: "3600",
  BATCH_INTERVAL_MS: "3600000",
});

const storedRing = async (svc: RunningService): Promise<RingKey[]> =>
  (await svc.service.ctx.store.keyRing.list()).map(publishedKey);
const active = (ring: RingKey[], kind: RingKey["kind"]) =>
  ring.find((k) => k.kind === kind && k.state === "active")!;
/** `--at` the command's time: nothing the key signs after it counts (the default leaves it a 1-s margin). */
const revoke = (config: Record<string, string>, key: RingKey) =>
  stampdCli(
    config,
    "keys",
    "revoke",
    key.key_id,
    "--kind",
    key.kind,
    "--reason",
    "leaked",
    "--at",
    new Date().toISOString(),
  );
const get = async <T>(svc: RunningService, path: string): Promise<T> =>
  (await fetch(`${svc.baseUrl}${path}`)).json() as Promise<T>;

/** The checkpoint `GET /log` serves verifies against the ring's trusted log keys (a revoked one is not). */
async function expectTrustedCheckpoint(svc: RunningService, ring: RingKey[]): Promise<void> {
  const { checkpoint } = await get<{ checkpoint: string }>(svc, "/log");
  await expect(verifyCheckpoint(checkpoint, ringVerifierKeys(ring))).resolves.toBeDefined();
}

describe("the proof pipeline after a revocation, before the ring is re-read", { timeout: 120_000 }, () => {
  it("signs the latest checkpoint again with the active log key when its key is revoked", async () => {
    const config = env();
    const svc = await hosts.instance(config);
    expect((await postStamp(svc, "logged before the leak")).status).toBe(201);
    await svc.service.proofs.pipeline.tick();
    const before = await storedRing(svc);
    await expectTrustedCheckpoint(svc, before);

    await revoke(config, active(before, "log"));
    const after = await storedRing(svc);
    // The revoked key's checkpoint is no longer trusted...
    await expect(expectTrustedCheckpoint(svc, after)).rejects.toThrow();
    // ...until the next tick, with nothing new to log, signs the same tree with the active key.
    await svc.service.proofs.pipeline.tick();
    await expectTrustedCheckpoint(svc, after);
    const { tree_size } = await get<{ tree_size: number }>(svc, "/log");
    expect(tree_size).toBe(1);
  });

  it("seals a batch and logs it with the active keys when both were revoked since the stamp", async () => {
    const config = env();
    const svc = await hosts.instance(config);
    const made = await postStamp(svc, "answered before the leak, sealed after it");
    expect(made.status).toBe(201);
    const { stamp_id } = (await made.json()) as { stamp_id: string };
    const before = await storedRing(svc);
    await revoke(config, active(before, "service"));
    await revoke(config, active(before, "log"));

    await svc.service.proofs.pipeline.tick();
    const after = await storedRing(svc);
    const proof = await get<{ batch: { public_key: string; sealed_at: string } }>(
      svc,
      `/stamps/${stamp_id}/proof`,
    );
    expect(proof.batch.public_key).toBe(active(after, "service").public_key);
    expect(proof.batch.public_key).not.toBe(active(before, "service").public_key);
    await expectTrustedCheckpoint(svc, after);
  });
});
