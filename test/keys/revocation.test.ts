import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import type { components } from "../../gen/openapi/types.js";
import { publishedKey } from "../../server/keys/key-ring.js";
import { Hosts, publishedRing } from "../helpers/hosts.js";
import { ServerProcess } from "../helpers/server-process.js";
import type { RunningService } from "../helpers/service.js";
import { stampdCli } from "../helpers/stampd-cli.js";
import { postStamp } from "../stamps/helpers.js";

/**
 * Revoking the active service key, the documented recovery from a leak (issue #35 item 2), as an
 * operator does it: `stampd keys revoke` from another process while instances stamp.
 */

type Schemas = components["schemas"];
type RingKey = Schemas["RingKey"];

const hosts = new Hosts();
afterEach(() => hosts.close());

const activeKey = (ring: RingKey[], kind: RingKey["kind"]) =>
  ring.find((k) => k.kind === kind && k.state === "active")!;

/**
 * Clients stamping on `instances` until `stop` resolves and then `after` more stamps are
 * answered, for 2 s at least: every stamp document an instance answered with 201.
 */
async function stampUnderLoad(
  instances: RunningService[],
  stop: Promise<unknown>,
  { clients = 6, after = 60 } = {},
): Promise<Schemas["StampDocument"][]> {
  const answered: Schemas["StampDocument"][] = [];
  let stopped = false;
  let afterStop = 0;
  // A revoked key's period ends 1 s after the command (the clock margin, docs/operations.md):
  // stamping goes on for 2 s past it, so stamps signed after the margin are among those checked
  // however fast the instances answer.
  let until = Number.POSITIVE_INFINITY;
  void stop.then(() => {
    stopped = true;
    until = Date.now() + 2000;
  });
  const client = async (c: number) => {
    for (let i = 0; !stopped || afterStop < after || Date.now() < until; i++) {
      const res = await postStamp(
        instances[c % instances.length]!,
        `client ${c} document ${i} ${Math.random()}`,
      );
      // A store slow to answer on a loaded machine says 503 with Retry-After: a client tries again.
      if (res.status === 503) {
        await res.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      expect(res.status).toBe(201);
      answered.push(((await res.json()) as Schemas["StampResponse"]).stamp_json);
      if (stopped) afterStop++;
    }
  };
  await Promise.all([...Array(clients).keys()].map(client));
  return answered;
}

/** The ring as stored now, published as `GET /keys` would once the instance re-reads it. */
const storedRing = async (svc: RunningService): Promise<RingKey[]> =>
  (await svc.service.ctx.store.keyRing.list()).map(publishedKey);

/** Every answered stamp verifies offline against the ring as published after the revocation. */
async function expectAllVerify(stamps: Schemas["StampDocument"][], ring: RingKey[]): Promise<void> {
  const failed: string[] = [];
  for (const stamp of stamps) {
    const result = await verifyStamp(stamp, { keyRing: ring });
    if (result.details.service_signature !== "valid")
      failed.push(`${stamp.stamp_id}: ${result.details.failures.join("; ")}`);
  }
  expect(failed, `${failed.length} of ${stamps.length} answered stamps fail`).toEqual([]);
}

/** `stampd keys revoke` of the active service key, with the instances' configuration. */
async function revokeServiceKey(env: Record<string, string>, baseUrl: string): Promise<RingKey> {
  const key = activeKey(await publishedRing(baseUrl), "service");
  await stampdCli(env, "keys", "revoke", key.key_id, "--kind", "service", "--reason", "key file leaked");
  return key;
}

// A ring re-read only hourly: nothing but the check before answering can keep a revoked key out.
const slowRefresh = { KEY_RING_REFRESH_SECONDS: "3600" };

describe("revoking the active service key while instances stamp", { timeout: 300_000 }, () => {
  it("on SQLite: every stamp answered before, during and after it verifies", async () => {
    const dataDir = hosts.folder();
    const env = { DATA_DIR: dataDir, ...slowRefresh };
    const svc = await hosts.instance(env);
    const revoked = revokeServiceKey(env, svc.baseUrl);
    const stamps = await stampUnderLoad([svc], revoked);
    const ring = await storedRing(svc);
    const old = await revoked;
    expect(ring.find((k) => k.key_id === old.key_id)?.state).toBe("revoked");
    await expectAllVerify(stamps, ring);
    // Both keys signed: the run spanned the revocation.
    const signers = new Set(stamps.map((s) => s.service_public_key));
    expect(signers).toEqual(new Set([old.public_key, activeKey(ring, "service").public_key]));
  });

  it("on two PostgreSQL instances: every stamp either answered verifies", async () => {
    const { url } = await hosts.schema();
    const first = hosts.folder();
    const a = await hosts.instance({ DATABASE_URL: url, DATA_DIR: first, ...slowRefresh });
    const atRest = { AT_REST_KEY_FILE: join(first, "keys", "at-rest.key") };
    const b = await hosts.instance({
      DATABASE_URL: url,
      DATA_DIR: hosts.folder(),
      ...atRest,
      ...slowRefresh,
    });
    const revoked = revokeServiceKey({ DATABASE_URL: url, DATA_DIR: hosts.folder(), ...atRest }, a.baseUrl);
    const stamps = await stampUnderLoad([a, b], revoked);
    const ring = await storedRing(b);
    const old = await revoked;
    await expectAllVerify(stamps, ring);
    // Both keys signed: the run spanned the revocation.
    const signers = new Set(stamps.map((s) => s.service_public_key));
    expect(signers).toEqual(new Set([old.public_key, activeKey(ring, "service").public_key]));
  });
});

describe("key material per role", () => {
  it("the first start gives the log a key of its own, which revoking the service key leaves active", async () => {
    const env = { DATA_DIR: hosts.folder() };
    const svc = await hosts.instance(env);
    const ring = await publishedRing(svc.baseUrl);
    const log = activeKey(ring, "log");
    expect(log.public_key).not.toBe(activeKey(ring, "service").public_key);
    await revokeServiceKey(env, svc.baseUrl);
    await svc.service.ctx.keys.ring!.refresh();
    expect(activeKey(await publishedRing(svc.baseUrl), "log")).toEqual(log);
  });
});

describe("a deployment after a revocation", { timeout: 300_000 }, () => {
  it("restarts unchanged: the instance whose key file holds the revoked key starts with the ring's active key", async () => {
    const env = { DATA_DIR: hosts.folder() };
    const before = await ServerProcess.start(env);
    hosts.onClose(async () => void (await before.stop("SIGKILL")));
    const earlier = await postStamp({ baseUrl: before.baseUrl } as RunningService, "before the leak");
    expect(earlier.status).toBe(201);
    const old = await revokeServiceKey(env, before.baseUrl);
    expect((await before.stop()).code).toBe(0);
    const after = await ServerProcess.start(env);
    hosts.onClose(async () => void (await after.stop("SIGKILL")));
    const stale = after.logs.find((line) => line.msg.startsWith("the signing key file is stale"));
    expect(stale?.msg).toContain(`service key ${old.key_id} is revoked`);
    const ring = await publishedRing(after.baseUrl);
    const made = await postStamp({ baseUrl: after.baseUrl } as RunningService, "after the restart");
    expect(made.status).toBe(201);
    const stamp = ((await made.json()) as Schemas["StampResponse"]).stamp_json;
    expect(stamp.service_public_key).toBe(activeKey(ring, "service").public_key);
    const kept = ((await earlier.json()) as Schemas["StampResponse"]).stamp_json;
    await expectAllVerify([kept, stamp], ring);
  });
});
