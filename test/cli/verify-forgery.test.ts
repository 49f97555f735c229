import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RingKey } from "../../core/key-ring.js";
import { createClient, fetchProofBundle, type ProofBundle } from "../../sdk/src/index.js";
import { ManualClock } from "../../server/clock.js";
import { type RunningService, startService } from "../helpers/service.js";
import { forgeSelfSigned } from "../sdk/forged-bundle.js";
import { createStamp } from "../stamps/helpers.js";
import { runStampd, SPAWNS_TIMEOUT } from "./run-stampd.js";

// Issue #35, items 1 and 6: `stampd verify` run as a user runs it on files forged as the audit
// forged them. A real service made the genuine stamp; a fake one answers "valid" to anything.
let svc: RunningService;
let fake: { server: Server; url: string; requests: string[] };
let dir: string;
let bundle: ProofBundle;
let ring: RingKey[];
const path = (name: string) => join(dir, name);
const save = (name: string, value: unknown) => {
  writeFileSync(path(name), JSON.stringify(value, null, 2));
  return path(name);
};

/** A server of the forger's: every request is answered with a valid VerifyResponse. */
async function startFakeService() {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        is_valid: true,
        signature_valid: true,
        content_hash_valid: true,
        trust_score: 100,
        trust_threshold: 0,
        trust_met: true,
        confirmed_anchors: 0,
        pending_anchors: 0,
        details: {
          format: "valid",
          service_signature: "valid",
          author_signature: "absent",
          content_hash: "match",
          sealed: true,
          logged: true,
          anchors: [],
          failures: [],
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

beforeAll(async () => {
  svc = await startService(
    { RATE_LIMIT_ENABLED: "false" },
    { clock: new ManualClock(new Date().toISOString()) },
  );
  fake = await startFakeService();
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-forgery-"));
  writeFileSync(path("contract.txt"), "the contract as signed");
  const stamp = await createStamp(svc, "the contract as signed");
  await svc.service.proofs.pipeline.tick();
  const client = createClient({ baseUrl: svc.baseUrl, maxRetries: 0 });
  bundle = await fetchProofBundle(client, stamp.stamp_id, { serviceUrl: svc.baseUrl });
  ring = (await client.log.keyRing()).keys;
  save("genuine.stampd.json", bundle);
  save("ring.json", { keys: ring });
});
afterAll(async () => {
  await svc?.close();
  await new Promise((resolve) => fake?.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const verify = (args: string[], env: Record<string, string> = {}) => runStampd(["verify", ...args], { env });

describe("stampd verify --online (item 1)", { timeout: SPAWNS_TIMEOUT }, () => {
  it("a genuine bundle with created_at moved to 2019 is INVALID online, as offline", async () => {
    const moved = structuredClone(bundle);
    moved.stamp.stamp_json.created_at = "2019-03-01T09:00:00.000Z";
    const file = save("moved.stampd.json", moved);
    const online = await verify([file, path("contract.txt"), "--online", "--url", svc.baseUrl]);
    expect(online.code).toBe(1);
    expect(online.out).toContain(`stamp ${bundle.stamp.stamp_id}: INVALID (online, ${svc.baseUrl}`);
    expect(online.out).toMatch(/service holds\s+a different stamp document/);
    const offline = await verify([file, path("contract.txt")]);
    expect(offline.code).toBe(1);
  });

  it("a self-signed bundle whose service_url is a fake server is not VALID online, and the fake is never asked", async () => {
    const forged = {
      ...forgeSelfSigned(bundle, { created_at: "2019-03-01T09:00:00.000Z" }),
      service_url: fake.url,
    };
    const file = save("forged.stampd.json", forged);
    // The user names the real service (STAMPD_URL): the forger's key is not in its ring.
    const named = await verify([file, path("contract.txt"), "--online", "--json"], {
      STAMPD_URL: svc.baseUrl,
    });
    expect(named.code).toBe(1);
    const check = JSON.parse(named.out);
    expect(check).toMatchObject({ valid: false, service_url: svc.baseUrl, held: "different", service: null });
    expect(check.local.pieces.find((p: { name: string }) => p.name === "service signature").status).toBe(
      "invalid",
    );
    // No service named: the file's own service_url is not a choice the file may make.
    const unnamed = await verify([file, path("contract.txt"), "--online"]);
    expect(unnamed.code).toBe(2);
    expect(unnamed.err).toContain("--online asks the service you name");
    expect(fake.requests).toEqual([]);
  });

  it("the genuine bundle is VALID online: checked with the service's key ring, held and verified by it", async () => {
    const run = await verify([
      path("genuine.stampd.json"),
      path("contract.txt"),
      "--online",
      "--url",
      svc.baseUrl,
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(`stamp ${bundle.stamp.stamp_id}: VALID (online, ${svc.baseUrl}`);
    expect(run.out).toMatch(/service signature\s+valid\s+verifies with a key of the deployment's key ring/);
    expect(run.out).toMatch(/service holds\s+the same stamp document/);
    expect(run.out).toMatch(/service verdict\s+valid/);
  });
});

describe("stampd verify offline: who vouches for the signer (item 6)", { timeout: SPAWNS_TIMEOUT }, () => {
  it("a self-signed bundle backdated to 2019 is 'signature valid, signer unknown', exit 3; INVALID with the key ring", async () => {
    const file = save(
      "self-signed.stampd.json",
      forgeSelfSigned(bundle, { created_at: "2019-03-01T09:00:00.000Z" }),
    );
    const alone = await verify([file, path("contract.txt")]);
    expect(alone.code).toBe(3);
    expect(alone.out).toContain(`stamp ${bundle.stamp.stamp_id}: signature valid, signer unknown (offline`);
    expect(alone.out).toContain("signer unknown: it verifies with the key the stamp embeds");
    const ringed = await verify([file, path("contract.txt"), "--key-ring", path("ring.json")]);
    expect(ringed.code).toBe(1);
    expect(ringed.out).toContain("INVALID");
    const env = await verify([file, path("contract.txt")], { STAMPD_KEY_RING: path("ring.json") });
    expect(env.code).toBe(1);
  });

  it("a stamp signed after its key's revocation (per the key ring) is INVALID", async () => {
    const created = Date.parse(bundle.stamp.stamp_json.created_at);
    const revoked = ring.map((k) =>
      k.kind === "service" && k.public_key === bundle.stamp.stamp_json.service_public_key
        ? {
            ...k,
            state: "revoked" as const,
            revoked_at: new Date(created - 60_000).toISOString(),
            revocation_reason: "key leaked",
          }
        : k,
    );
    const ringFile = save("revoked-ring.json", { keys: revoked });
    const run = await verify([path("genuine.stampd.json"), path("contract.txt"), "--key-ring", ringFile]);
    expect(run.code).toBe(1);
    expect(run.out).toContain("INVALID");
    expect(run.out).toContain("was revoked at");
    const stampFile = save("stamp.json", bundle.stamp.stamp_json);
    const plain = await verify([stampFile, path("contract.txt"), "--key-ring", ringFile]);
    expect(plain.code).toBe(1);
  });

  it("the genuine bundle: exit 0 VALID with the key ring or a pinned key, exit 3 without", async () => {
    const file = path("genuine.stampd.json");
    expect((await verify([file, path("contract.txt"), "--key-ring", path("ring.json")])).code).toBe(0);
    const key = bundle.stamp.stamp_json.service_public_key;
    const pinned = await verify(["--trust", key, "--", file, path("contract.txt")]);
    expect(pinned.code).toBe(0);
    expect(pinned.out).toContain(`stamp ${bundle.stamp.stamp_id}: VALID (offline`);
    expect((await verify([file, path("contract.txt")])).code).toBe(3);
  });
});
