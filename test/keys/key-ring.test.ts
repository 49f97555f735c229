import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../core/checkpoint.js";
import { ringVerifierKeys } from "../../core/key-ring.js";
import { verifyStamp } from "../../core/stamp.js";
import type { components } from "../../gen/openapi/types.js";
import { type Clock, ManualClock } from "../../server/clock.js";
import { revokeKey, rotateKey } from "../../server/keys/key-rotation.js";
import { connectClient } from "../grpc/fixture.js";
import { type RunningService, startService } from "../helpers/service.js";

type Schemas = components["schemas"];

const root = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

let svc: RunningService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const clock = () => new ManualClock("2026-03-01T00:00:00.000Z");

async function start(manual: ManualClock): Promise<RunningService> {
  svc = await startService(
    { KEY_RING_REFRESH_SECONDS: "30", RATE_LIMIT_ENABLED: "false" },
    { clock: manual },
  );
  return svc;
}

async function call<T>(s: RunningService, method: string, path: string, body?: unknown): Promise<T> {
  const json = body !== undefined && !(body instanceof FormData);
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: json ? { "content-type": "application/json" } : {},
    body: json ? JSON.stringify(body) : (body as FormData | undefined),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

function stamp(s: RunningService, text: string): Promise<Schemas["StampResponse"]> {
  const form = new FormData();
  form.append("file", new Blob([text]), "document.txt");
  return call(s, "POST", "/stamps", form);
}
const ring = async (s: RunningService) => (await call<Schemas["KeyRing"]>(s, "GET", "/keys")).keys;

/** The rotation `stampd keys rotate` makes, against the service's own store. */
function ports(s: RunningService, clock: Clock, overlapMs = 60_000) {
  const { store, keys } = s.service.ctx;
  return { repo: store.keyRing, atRest: keys.atRest, clock, overlapMs };
}

describe("the key ring", () => {
  it("publishes the first start's service and log keys, public and cacheable", async () => {
    const s = await start(clock());
    const res = await fetch(`${s.baseUrl}/keys`);
    expect(res.headers.get("cache-control")).toBe("public, max-age=30");
    const keys = ((await res.json()) as Schemas["KeyRing"]).keys;
    expect(keys.map((k) => [k.kind, k.state])).toEqual([
      ["log", "active"],
      ["service", "active"],
      // The service key's Sigstore twin (server/keys/sigstore-key.ts), with its period and state.
      ["sigstore", "active"],
      ["tsa", "active"],
    ]);
    const tsa = keys.find((k) => k.kind === "tsa")!;
    expect(tsa.public_key.endsWith(await (await fetch(`${s.baseUrl}/tsa/ca.pem`)).text())).toBe(true);
    const log = keys.find((k) => k.kind === "log")!;
    expect(log.verifier_key).toBe((await call<Schemas["LogInfo"]>(s, "GET", "/log")).verifier_key);
    expect(JSON.stringify(keys)).not.toMatch(/sealed|private/);
  });

  it("keeps stamps signed before a rotation valid on REST, gRPC and offline with the ring", async () => {
    const manual = clock();
    const s = await start(manual);
    const before = await stamp(s, "before");
    manual.advance(1000);
    const rotated = await rotateKey(ports(s, manual), "service");
    await s.service.ctx.keys.ring!.refresh();
    manual.advance(1000);
    const after = await stamp(s, "after");
    expect(after.stamp_json.service_public_key).toBe(rotated.active.publicKey);
    expect(before.stamp_json.service_public_key).toBe(rotated.retired!.publicKey);
    const published = await ring(s);
    expect(published.filter((k) => k.kind === "service").map((k) => k.state)).toEqual(["retired", "active"]);
    const grpc = connectClient(s);
    for (const made of [before, after]) {
      const rest = await call<Schemas["VerifyResponse"]>(s, "POST", `/stamps/${made.stamp_id}/verify`);
      expect(rest.details.service_signature, rest.details.failures.join("; ")).toBe("valid");
      const document = await call<Schemas["VerifyResponse"]>(s, "POST", "/verify", {
        stamp_json: made.stamp_json,
      });
      expect(document.details.service_signature).toBe("valid");
      expect((await grpc.verify({ stampId: made.stamp_id })).verified).toBe(true);
      const offline = await verifyStamp(made.stamp_json, { keyRing: published });
      expect(offline.details.service_signature, offline.details.failures.join("; ")).toBe("valid");
    }
    const page = await (await fetch(`${s.baseUrl}/verify/${before.stamp_id}`)).text();
    expect(page).toContain(`service key <code class="value">${rotated.retired!.keyId}</code>`);
    expect(page).toContain(
      `retired: signing since the deployment began until ${rotated.retired!.notAfter!.toISOString()}`,
    );
    // Without the ring, the old pinned key alone does not vouch for the new stamp.
    const pinned = await verifyStamp(after.stamp_json, { trustedServiceKeys: [rotated.retired!.publicKey] });
    expect(pinned.details.service_signature).toBe("untrusted_key");
  });

  it("fails a revoked key's stamps from its revocation on, with the reason, and keeps its earlier ones", async () => {
    const manual = clock();
    const s = await start(manual);
    const early = await stamp(s, "early");
    const compromisedAt = new Date(manual.now().getTime() + 500);
    manual.advance(1000);
    // Signed after the compromise, by an instance that has not re-read the ring yet.
    const late = await stamp(s, "late");
    const keyId = (await ring(s)).find((k) => k.kind === "service" && k.state === "active")!.key_id;
    const outcome = await revokeKey(ports(s, manual), "service", keyId, {
      reason: "key file leaked",
      at: compromisedAt,
    });
    expect(outcome?.revoked.map((k) => k.keyId)).toEqual([keyId]);
    expect(outcome?.activated[0]?.publicKey).not.toBe(early.stamp_json.service_public_key);
    await s.service.ctx.keys.ring!.refresh();
    const published = await ring(s);
    const rest = await call<Schemas["VerifyResponse"]>(s, "POST", `/stamps/${late.stamp_id}/verify`);
    expect(rest.is_valid).toBe(false);
    expect(rest.details.service_signature).toBe("untrusted_key");
    expect(rest.details.failures.join("; ")).toContain(
      `was revoked at ${compromisedAt.toISOString()} (key file leaked)`,
    );
    expect((await connectClient(s).verify({ stampId: late.stamp_id })).verified).toBe(false);
    const offline = await verifyStamp(late.stamp_json, { keyRing: published });
    expect(offline.details.service_signature).toBe("untrusted_key");
    const kept = await call<Schemas["VerifyResponse"]>(s, "POST", `/stamps/${early.stamp_id}/verify`);
    expect(kept.details.service_signature).toBe("valid");
    expect((await verifyStamp(early.stamp_json, { keyRing: published })).details.service_signature).toBe(
      "valid",
    );
    // The CLI, offline, with the ring saved to a file.
    const dir = mkdtempSync(join(tmpdir(), "stampd-ring-"));
    try {
      writeFileSync(join(dir, "keys.json"), JSON.stringify({ keys: published }));
      for (const [name, made] of [
        ["early", early],
        ["late", late],
      ] as const) {
        writeFileSync(join(dir, `${name}.json`), JSON.stringify(made.stamp_json));
      }
      const cli = (name: string) =>
        run(
          process.execPath,
          [
            "bin/stampd.js",
            "verify",
            join(dir, `${name}.json`),
            "--key-ring",
            join(dir, "keys.json"),
            "--json",
          ],
          {
            cwd: root,
          },
        ).then(
          ({ stdout }) => ({ code: 0, result: JSON.parse(stdout) as Schemas["VerifyResponse"] }),
          (err: { code: number; stdout: string }) => ({
            code: err.code,
            result: JSON.parse(err.stdout) as Schemas["VerifyResponse"],
          }),
        );
      expect((await cli("early")).code).toBe(0);
      const refused = await cli("late");
      expect(refused.code).toBe(1);
      expect(refused.result.details.failures.join("; ")).toContain("(key file leaked)");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The new active key signs on.
    const next = await stamp(s, "next");
    expect((await verifyStamp(next.stamp_json, { keyRing: published })).details.service_signature).toBe(
      "valid",
    );
  });

  it("verifies checkpoints from before and after a log key rotation with the published ring", async () => {
    const manual = clock();
    const s = await start(manual);
    const first = await stamp(s, "first");
    await s.service.proofs.pipeline.tick();
    const before = (await call<Schemas["LogInfo"]>(s, "GET", "/log")).checkpoint;
    manual.advance(1000);
    await rotateKey(ports(s, manual), "log");
    await s.service.ctx.keys.ring!.refresh();
    await stamp(s, "second");
    await s.service.proofs.pipeline.tick();
    const after = await call<Schemas["LogInfo"]>(s, "GET", "/log");
    expect(after.checkpoint).not.toBe(before);
    const trusted = ringVerifierKeys(await ring(s));
    expect(trusted).toHaveLength(2);
    expect(trusted).toContain(after.verifier_key);
    expect((await verifyCheckpoint(before, trusted)).treeSize).toBe(1);
    expect((await verifyCheckpoint(after.checkpoint, trusted)).treeSize).toBe(2);
    // The old log key alone does not vouch for the new checkpoint.
    await expect(verifyCheckpoint(after.checkpoint, [trusted[0]!])).rejects.toThrow(
      /no signature by a trusted log key/,
    );
    // A stamp's proof from before the rotation, checked offline against the ring.
    const proof = await call<Schemas["StampProof"]>(s, "GET", `/stamps/${first.stamp_id}/proof`);
    const offline = await verifyStamp(first.stamp_json, { keyRing: await ring(s), proof });
    expect(offline.details.logged, offline.details.failures.join("; ")).toBe(true);
  });
});

describe("the log's origin", () => {
  const stampd = (env: Record<string, string>, ...args: string[]) =>
    run(process.execPath, ["bin/stampd.js", ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });

  it("is kept for a non-empty log unless moved through the ring, and checkpoints under both verify", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stampd-origin-"));
    const env = { DATA_DIR: dir, RATE_LIMIT_ENABLED: "false", LOG_ORIGIN: "one.example/log" };
    try {
      svc = await startService(env);
      await stamp(svc, "logged under one.example/log");
      await svc.service.proofs.pipeline.tick();
      const before = (await call<Schemas["LogInfo"]>(svc, "GET", "/log")).checkpoint;
      await svc.close();
      svc = undefined;
      const moved = { ...env, LOG_ORIGIN: "two.example/log" };
      await expect(startService(moved)).rejects.toThrow(
        "invalid configuration: LOG_ORIGIN: two.example/log is not the log's origin one.example/log (the log has 1 entries",
      );
      await stampd(env, "keys", "rotate", "--kind", "log", "--origin", "two.example/log");
      svc = await startService(moved);
      await stamp(svc, "logged under two.example/log");
      await svc.service.proofs.pipeline.tick();
      const after = await call<Schemas["LogInfo"]>(svc, "GET", "/log");
      expect(after.origin).toBe("two.example/log");
      const trusted = ringVerifierKeys(await ring(svc));
      expect((await verifyCheckpoint(before, trusted)).origin).toBe("one.example/log");
      expect((await verifyCheckpoint(after.checkpoint, trusted)).treeSize).toBe(2);
      // Revoking the old log key through the CLI: its checkpoints are no longer trusted.
      const { stdout } = await stampd(env, "keys", "ring", "--json");
      const old = (JSON.parse(stdout) as Schemas["KeyRing"]).keys.find(
        (k) => k.origin === "one.example/log",
      )!;
      await stampd(env, "keys", "revoke", old.key_id, "--kind", "log", "--reason", "test");
      await svc.service.ctx.keys.ring!.refresh();
      const revoked = ringVerifierKeys(await ring(svc));
      await expect(verifyCheckpoint(before, revoked)).rejects.toThrow();
      expect((await verifyCheckpoint(after.checkpoint, revoked)).treeSize).toBe(2);
    } finally {
      await svc?.close();
      svc = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
