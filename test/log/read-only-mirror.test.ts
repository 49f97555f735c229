import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectoryTileMirror } from "../../server/log/directory-tile-mirror.js";
import { type RunningService, startService } from "../helpers/service.js";

// LOG_TILES_DIR on a file system mounted read-only (a tmpfs here; root mounts it, as CI runs):
// the mirror reports the real cause, and GET /health shows the mirror failing.
describe("a tile mirror on a read-only file system", () => {
  let mount: string;
  let svc: RunningService;

  beforeAll(async () => {
    mount = mkdtempSync(join(tmpdir(), "stampd-ro-mirror-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", mount]);
    svc = await startService({ LOG_TILES_DIR: mount, RATE_LIMIT_ENABLED: "false" });
  });
  afterAll(async () => {
    await svc?.close();
    execFileSync("umount", [mount]);
    rmSync(mount, { recursive: true, force: true });
  });

  it("fails with EROFS, not ENOENT (Node's recursive mkdir says ENOENT there)", async () => {
    const mirror = new DirectoryTileMirror(mount);
    await expect(mirror.recover()).rejects.toMatchObject({ code: "EROFS" });
    await expect(mirror.write("tile/0/000", new Uint8Array(32))).rejects.toMatchObject({ code: "EROFS" });
  });

  it("shows in GET /health as mirror: fail (degraded), the store still ok", async () => {
    const form = new FormData();
    form.set("file", new Blob(["mirrored"]), "a.txt");
    expect((await fetch(`${svc.baseUrl}/stamps`, { method: "POST", body: form })).status).toBe(201);
    await svc.service.proofs.pipeline.tick();
    const res = await fetch(`${svc.baseUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "degraded", checks: { mirror: "fail", store: "ok" } });
  });
});
