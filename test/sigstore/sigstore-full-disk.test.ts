import { rmSync } from "node:fs";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { type RunningService, startService } from "../helpers/service.js";
import { fill, integrityCheck, mountTmpfs, unmountSmallDisks } from "../helpers/small-disk.js";
import {
  askBundle,
  auditAfterFault,
  type BundleAnswer,
  bundlesOrUnavailable,
  expectVerified,
  type Stamped,
  stampDocument,
} from "./fault-answers.js";
import { publishedTrust } from "./sigstore-js.js";

afterAll(unmountSmallDisks);

/**
 * The stamp log's appends (a bundle's first request) on SQLite with DATA_DIR on a small tmpfs the
 * test fills: bundles of stamps already logged are still answered, first-time ones 503
 * `storage_full` with Retry-After as every other write (docs/operations.md "When a dependency
 * fails"), readiness names `storage`; with space back the same requests are answered without a
 * restart, every bundle verifies, the stamp log holds each stamp once and the database is intact.
 */
describe("Sigstore bundles on a full SQLite disk", () => {
  let dataDir: string;
  let svc: RunningService | undefined;
  const stamps: Stamped[] = [];
  const answered: BundleAnswer[] = [];

  beforeAll(async () => {
    dataDir = mountTmpfs();
    svc = await startService({ DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" });
    for (let i = 0; i < 20; i++) stamps.push(await stampDocument(svc.baseUrl));
    await svc.service.proofs.pipeline.tick();
  }, 60_000);
  afterAll(async () => {
    rmSync(join(dataDir, "filler"), { force: true });
    await svc?.close();
  });

  it("answers 503 storage_full for first-time bundles while full, and appends them once space returns", async () => {
    const running = svc!;
    const logged = stamps.slice(0, 4);
    for (const stamp of logged) answered.push(await askBundle(running.baseUrl, stamp.id));
    expect(answered.map((a) => a.status)).toEqual([200, 200, 200, 200]);

    const filler = fill(dataDir);
    const during = await Promise.all(stamps.slice(4).map((s) => askBundle(running.baseUrl, s.id)));
    const bundles = bundlesOrUnavailable(during, 10_000, "storage_full");
    expect(during.length - bundles.length).toBeGreaterThan(0);
    // A stamp already in the log needs no write: its bundle is still answered, as the same entry.
    const again = await askBundle(running.baseUrl, logged[0]!.id);
    expect(again.status).toBe(200);
    expect(again.body.verificationMaterial.tlogEntries[0]!.canonicalizedBody).toBe(
      answered[0]!.body.verificationMaterial.tlogEntries[0]!.canonicalizedBody,
    );
    const root = await fetch(`${running.baseUrl}/sigstore/trusted_root.json`);
    expect(root.status).toBe(200);
    const grpc = createClient(StampService, createGrpcTransport({ baseUrl: running.grpcUrl }));
    const refusals = await Promise.all(
      stamps
        .slice(4)
        .map((s) => grpc.getSigstoreBundle({ stampId: s.id }).then(() => undefined, ConnectError.from)),
    );
    for (const refusal of refusals.filter((r) => r !== undefined)) {
      expect(refusal.code).toBe(Code.Unavailable);
      expect(refusal.metadata.get("grpc-retry-pushback-ms")).toBe("2000");
    }
    const ready = await fetch(`${running.baseUrl}/ready`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 503,
      body: { status: "unavailable", unavailable: ["storage"] },
    });
    answered.push(...during);
    await expectVerified(bundles, stamps, await publishedTrust(running.baseUrl));

    rmSync(filler);
    await vi.waitFor(async () => expect((await fetch(`${running.baseUrl}/ready`)).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    });
    await auditAfterFault(running.baseUrl, stamps, answered);
    await running.close();
    svc = undefined;
    expect(integrityCheck(join(dataDir, "stampd.db"))).toBe("ok");
  }, 60_000);
});
