import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { startService } from "../helpers/service.js";
import { createStamp, type StampResponse } from "../stamps/helpers.js";

// `stampd verify` runs offline: the service that made the stamp is closed before the CLI runs.
const bin = new URL("../../bin/stampd.js", import.meta.url).pathname;
let dir: string;
let stamp: StampResponse;
let serviceKey: string;
const path = (name: string) => join(dir, name);

beforeAll(async () => {
  const svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  stamp = await createStamp(svc, "signed contract", { preset: "casual" });
  serviceKey = svc.service.ctx.keys.signing.publicKey;
  await svc.close();
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-"));
  writeFileSync(path("response.json"), JSON.stringify(stamp));
  writeFileSync(path("stamp.json"), JSON.stringify(stamp.stamp_json));
  writeFileSync(path("tampered.json"), JSON.stringify({ ...stamp.stamp_json, trust_threshold: 0 }));
  writeFileSync(path("contract.txt"), "signed contract");
  writeFileSync(path("other.txt"), "another contract");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stampd = (...args: string[]) => {
  const run = spawnSync(process.execPath, [bin, "verify", ...args], { encoding: "utf8" });
  return { code: run.status, out: run.stdout, err: run.stderr };
};

describe("stampd verify", () => {
  it("exits 3 for a valid stamp and its file with no key pinned (signer unknown), with a human summary", () => {
    const { code, out } = stampd(path("stamp.json"), path("contract.txt"));
    expect(code).toBe(3);
    expect(out).toContain(`stamp ${stamp.stamp_id}: signature valid, signer unknown`);
    expect(out).toMatch(/content hash\s+match/);
    // Offline without the stamp's proof only the signature is evidence (issue #22).
    // ...and a stamp document alone holds no proof of them: the score is not checked, not "not met".
    expect(out).toMatch(
      /trust score\s+1 of 2 required \(not checked offline: .* stampd get stp_\w+ --out <name>\.stampd\.json\)/,
    );
  });

  it("exits 1 for another file and names the mismatch", () => {
    const { code, out } = stampd(path("response.json"), path("other.txt"));
    expect(code).toBe(1);
    expect(out).toContain("INVALID");
    expect(out).toContain("content hash mismatch");
  });

  it("--json prints the VerifyResponse the SDK computes", async () => {
    const { code, out } = stampd("--json", path("tampered.json"));
    expect(code).toBe(1);
    const expected = await verifyStamp({ ...stamp.stamp_json, trust_threshold: 0 });
    expect(JSON.parse(out)).toEqual(expected);
    expect(expected.details.service_signature).toBe("invalid");
  });

  it("--trust pins the service key: the right key passes, another is an untrusted key", () => {
    const pinned = stampd("--trust", serviceKey, "--", path("stamp.json"));
    expect(pinned.code).toBe(0);
    expect(pinned.out).toContain(`stamp ${stamp.stamp_id}: VALID (offline)`);
    const other = `ed25519:${"1".repeat(64)}`;
    const { code, out } = stampd("--trust", other, "--json", "--", path("stamp.json"));
    expect(code).toBe(1);
    expect(JSON.parse(out).details.service_signature).toBe("untrusted_key");
  });
});
