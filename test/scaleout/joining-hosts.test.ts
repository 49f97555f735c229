import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import type { components } from "../../gen/openapi/types.js";
import { Hosts, publishedRing } from "../helpers/hosts.js";
import type { RunningService } from "../helpers/service.js";
import { startUntilExit } from "../helpers/start-until-exit.js";
import { createStamp } from "../stamps/helpers.js";

/**
 * Every way docs/scale-out.md ("Keys must be the same on every instance") gives to add a host to a
 * deployment on PostgreSQL, done as written: each new host has a DATA_DIR of its own.
 */

type Schemas = components["schemas"];

const hosts = new Hosts();
afterEach(() => hosts.close());
const folder = () => hosts.folder();
const instance = (env: Record<string, string>) => hosts.instance(env);

/** The first host: a deployment on a fresh schema, its keys made in its DATA_DIR. */
async function firstHost() {
  const schema = await hosts.schema();
  const dataDir = folder();
  const first = await instance({ DATABASE_URL: schema.url, DATA_DIR: dataDir });
  const keys = join(dataDir, "keys");
  return { url: schema.url, first, keys };
}

const ring = (svc: RunningService) => publishedRing(svc.baseUrl);

/** The files of a DATA_DIR's keys folder (none when the folder was never made). */
const keyFiles = (dataDir: string): string[] =>
  existsSync(join(dataDir, "keys")) ? readdirSync(join(dataDir, "keys")).sort() : [];

/**
 * The joined host serves the deployment: the same ring, stamps that verify on the first host and
 * offline against the ring, signed with the ring's active service key, and RFC 3161 tokens from
 * the ring's TSA key (the TSA is the deployment's, not a new one).
 */
async function expectOneDeployment(first: RunningService, joined: RunningService): Promise<void> {
  const keys = await ring(first);
  expect(await ring(joined)).toEqual(keys);
  const made = await createStamp(joined, `made on the joined host ${Math.random()}`);
  const active = keys.find((k) => k.kind === "service" && k.state === "active")!;
  expect(made.stamp_json.service_public_key).toBe(active.public_key);
  const onFirst = await fetch(`${first.baseUrl}/stamps/${made.stamp_id}/verify`, { method: "POST" });
  expect(((await onFirst.json()) as Schemas["VerifyResponse"]).is_valid).toBe(true);
  expect((await verifyStamp(made.stamp_json, { keyRing: keys })).details.service_signature).toBe("valid");
  await joined.service.proofs.pipeline.tick();
  const token = await fetch(`${joined.baseUrl}/stamps/${made.stamp_id}/timestamp.tsr`);
  expect(token.status).toBe(200);
  await token.arrayBuffer();
  const ca = await (await fetch(`${joined.baseUrl}/tsa/ca.pem`)).text();
  expect(ca).toBe(await (await fetch(`${first.baseUrl}/tsa/ca.pem`)).text());
}

describe("a host joins a deployment with the at-rest key alone", () => {
  it.each([
    ["AT_REST_KEY_FILE", (keys: string) => ({ AT_REST_KEY_FILE: join(keys, "at-rest.key") })],
    [
      "AT_REST_KEY",
      (keys: string) => ({ AT_REST_KEY: readFileSync(join(keys, "at-rest.key"), "utf8").trim() }),
    ],
    [
      "AT_REST_KEY_COMMAND",
      (keys: string) => ({ AT_REST_KEY_COMMAND: `cat '${join(keys, "at-rest.key")}' | tr -d '\\n'` }),
    ],
  ])(
    "given DATABASE_URL and %s, an empty DATA_DIR of its own: signs with the ring's keys, writes no key file",
    async (_name, atRest) => {
      const { url, first, keys } = await firstHost();
      const dataDir = folder();
      const joined = await instance({ DATABASE_URL: url, DATA_DIR: dataDir, ...atRest(keys) });
      expect(keyFiles(dataDir)).toEqual([]);
      await expectOneDeployment(first, joined);
    },
  );

  it("given SERVICE_SIGNING_KEY_FILE and AT_REST_KEY_FILE pointed at the first host's secrets", async () => {
    const { url, first, keys } = await firstHost();
    const dataDir = folder();
    const joined = await instance({
      DATABASE_URL: url,
      DATA_DIR: dataDir,
      SERVICE_SIGNING_KEY_FILE: join(keys, "service-ed25519.pem"),
      AT_REST_KEY_FILE: join(keys, "at-rest.key"),
    });
    expect(keyFiles(dataDir)).toEqual([]);
    await expectOneDeployment(first, joined);
  });

  it("given a copy of the first host's keys folder", async () => {
    const { url, first, keys } = await firstHost();
    const dataDir = folder();
    cpSync(keys, join(dataDir, "keys"), { recursive: true });
    const copied = keyFiles(dataDir);
    const joined = await instance({ DATABASE_URL: url, DATA_DIR: dataDir });
    expect(keyFiles(dataDir)).toEqual(copied);
    await expectOneDeployment(first, joined);
  });
});

// Starts of the real server (tsx compiling it) take 10-30 s on a busy 2-core machine.
describe("a host that cannot have the deployment's keys stops at start with one line, exit code 2", {
  timeout: 90_000,
}, () => {
  it.each([
    [
      "no at-rest key at all",
      () => ({}),
      /^invalid configuration: AT_REST_KEY: this deployment's key ring exists and \S+at-rest.key does not; give the deployment's at-rest key/,
    ],
    [
      "an AT_REST_KEY_COMMAND that fails",
      () => ({ AT_REST_KEY_COMMAND: "echo 'no such secret' >&2; exit 3" }),
      /^invalid configuration: AT_REST_KEY_COMMAND: exited with status 3: no such secret$/,
    ],
    [
      "an AT_REST_KEY_COMMAND that outlives AT_REST_KEY_COMMAND_TIMEOUT_SECONDS",
      () => ({ AT_REST_KEY_COMMAND: "sleep 30", AT_REST_KEY_COMMAND_TIMEOUT_SECONDS: "1" }),
      /^invalid configuration: AT_REST_KEY_COMMAND: did not finish within 1 s \(AT_REST_KEY_COMMAND_TIMEOUT_SECONDS\)$/,
    ],
    [
      "an AT_REST_KEY_COMMAND that prints no key",
      () => ({ AT_REST_KEY_COMMAND: "echo not-a-key" }),
      /^invalid configuration: AT_REST_KEY: the key must be 64 hex characters \(256 bits\)$/,
    ],
    [
      "AT_REST_KEY_COMMAND and AT_REST_KEY_FILE both",
      (keys: string) => ({ AT_REST_KEY_COMMAND: "true", AT_REST_KEY_FILE: join(keys, "at-rest.key") }),
      /^invalid configuration: AT_REST_KEY: set one of AT_REST_KEY_FILE, AT_REST_KEY_COMMAND, not several$/,
    ],
  ])("%s", async (_name, settings, line) => {
    const { url, first, keys } = await firstHost();
    const before = await ring(first);
    const dataDir = folder();
    const outcome = await startUntilExit({ DATABASE_URL: url, DATA_DIR: dataDir, ...settings(keys) });
    expect(outcome.code).toBe(2);
    expect(outcome.lines).toHaveLength(1);
    expect(outcome.lines[0]).toMatch(line);
    expect(keyFiles(dataDir)).toEqual([]);
    expect(await ring(first)).toEqual(before);
  });
});
