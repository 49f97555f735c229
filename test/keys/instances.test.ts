import { execFile } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { rotateKey } from "../../server/keys/key-rotation.js";
import { freshTsaCredentials } from "../../server/keys/tsa-keys.js";
import { Hosts, publishedRing } from "../helpers/hosts.js";
import type { RunningService } from "../helpers/service.js";
import { startUntilExit } from "../helpers/start-until-exit.js";

type Schemas = components["schemas"];

const root = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

const hosts = new Hosts();
afterEach(() => hosts.close());
const schema = () => hosts.schema();
const folder = () => hosts.folder();
const instance = (env: Record<string, string>) => hosts.instance(env);
const ring = (svc: RunningService) => publishedRing(svc.baseUrl);

async function stamp(svc: RunningService, text: string): Promise<Schemas["StampResponse"]> {
  const form = new FormData();
  form.append("file", new Blob([text]), "document.txt");
  const res = await fetch(`${svc.baseUrl}/stamps`, { method: "POST", body: form });
  expect(res.status).toBe(201);
  return (await res.json()) as Schemas["StampResponse"];
}

// Starts of the real server (tsx compiling it) take 10-30 s on a busy 2-core machine.
describe("instances of one deployment on PostgreSQL", { timeout: 90_000 }, () => {
  it("refuses to start an instance whose signing key is not in the ring: one line, non-zero exit", async () => {
    const { url } = await schema();
    const first = folder();
    const a = await instance({ DATABASE_URL: url, DATA_DIR: first });
    const before = await ring(a);
    // The deployment's at-rest key, but a signing key of its own.
    const own = join(folder(), "own.pem");
    writeFileSync(own, generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }), {
      mode: 0o600,
    });
    const outcome = await startUntilExit({
      DATABASE_URL: url,
      DATA_DIR: folder(),
      SERVICE_SIGNING_KEY_FILE: own,
      AT_REST_KEY_FILE: join(first, "keys", "at-rest.key"),
    });
    expect(outcome.code).toBe(2);
    const { lines } = outcome;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^invalid configuration: SERVICE_SIGNING_KEY_FILE: key ed25519:[0-9a-f]{64} is not in this deployment's key ring/,
    );
    expect(await ring(a)).toEqual(before);
  });

  it("refuses an instance with another at-rest key before it writes anything", async () => {
    const { url } = await schema();
    const first = folder();
    const a = await instance({ DATABASE_URL: url, DATA_DIR: first });
    const before = await ring(a);
    const outcome = await startUntilExit({
      DATABASE_URL: url,
      DATA_DIR: folder(),
      SERVICE_SIGNING_KEY_FILE: join(first, "keys", "service-ed25519.pem"),
      AT_REST_KEY: randomBytes(32).toString("hex"),
    });
    expect(outcome.code).toBe(2);
    expect(outcome.lines).toEqual([
      "invalid configuration: AT_REST_KEY: not this deployment's at-rest key (it cannot open the stored check value); start with the key every other instance uses",
    ]);
    expect(await ring(a)).toEqual(before);
  });

  it("refuses an instance whose keys/tsa.pem holds a TSA certificate of its own", async () => {
    const { url } = await schema();
    const first = folder();
    await instance({ DATABASE_URL: url, DATA_DIR: first });
    const second = folder();
    const fresh = await freshTsaCredentials(new Date(), true);
    mkdirSync(join(second, "keys"), { mode: 0o700 });
    writeFileSync(join(second, "keys", "tsa.pem"), `${fresh.keyPem}${fresh.chainPem}`, { mode: 0o600 });
    const outcome = await startUntilExit({
      DATABASE_URL: url,
      DATA_DIR: second,
      SERVICE_SIGNING_KEY_FILE: join(first, "keys", "service-ed25519.pem"),
      AT_REST_KEY_FILE: join(first, "keys", "at-rest.key"),
    });
    expect(outcome.code).toBe(2);
    const { lines } = outcome;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^invalid configuration: DATA_DIR: keys\/tsa.pem holds TSA certificate [0-9a-f]{16}, which is not in this deployment's key ring/,
    );
  });

  it("signs with a key rotated by `stampd keys rotate` on every instance within KEY_RING_REFRESH_SECONDS", async () => {
    const { url } = await schema();
    const env = { DATABASE_URL: url, DATA_DIR: folder(), KEY_RING_REFRESH_SECONDS: "1" };
    const a = await instance(env);
    const b = await instance(env);
    const old = await stamp(b, "before the rotation");
    const { stdout } = await run(
      process.execPath,
      ["bin/stampd.js", "keys", "rotate", "--kind", "service", "--json"],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      },
    );
    const rotatedAt = Date.now();
    const { active } = JSON.parse(stdout) as { active: Schemas["RingKey"] };
    // Instance B re-reads the ring every second: within that (and a little for the stamp itself)
    // it signs with the new key; a stamp signed with the old one meanwhile stays valid.
    const stamps: Schemas["StampResponse"][] = [];
    while (stamps.at(-1)?.stamp_json.service_public_key !== active.public_key) {
      expect(Date.now() - rotatedAt).toBeLessThan(2_000);
      stamps.push(await stamp(b, `after the rotation ${stamps.length}`));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const made of [old, ...stamps]) {
      for (const svc of [a, b]) {
        const res = await fetch(`${svc.baseUrl}/stamps/${made.stamp_id}/verify`, { method: "POST" });
        const result = (await res.json()) as Schemas["VerifyResponse"];
        expect(result.details.service_signature, result.details.failures.join("; ")).toBe("valid");
      }
    }
    expect((await ring(a)).filter((k) => k.kind === "service").map((k) => k.state)).toEqual([
      "retired",
      "active",
    ]);
  });

  it("verifies a stamp signed with a key it has not read yet: an unknown key re-reads the ring first", async () => {
    const { url } = await schema();
    // An hour between reads: only the re-read on an unknown key can show A the new key.
    const env = { DATABASE_URL: url, DATA_DIR: folder(), KEY_RING_REFRESH_SECONDS: "3600" };
    const a = await instance(env);
    const b = await instance(env);
    const { store, keys } = b.service.ctx;
    const { active } = await rotateKey(
      { repo: store.keyRing, atRest: keys.atRest, clock: store.clock!, overlapMs: 0 },
      "service",
    );
    await keys.ring!.refresh();
    const made = await stamp(b, "signed with the key A has not read");
    expect(made.stamp_json.service_public_key).toBe(active.publicKey);
    const res = await fetch(`${a.baseUrl}/stamps/${made.stamp_id}/verify`, { method: "POST" });
    const result = (await res.json()) as Schemas["VerifyResponse"];
    expect(result.details.service_signature, result.details.failures.join("; ")).toBe("valid");
  });
});
