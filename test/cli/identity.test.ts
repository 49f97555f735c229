import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

let svc: RunningService;
let key: string;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  key = (await issueKey(svc)).key;
});
afterAll(() => svc.close());

async function storedIdentity(id: string): Promise<unknown> {
  const res = await fetch(`${svc.baseUrl}/identity/${id}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe("stampd identity", { timeout: SPAWNS_TIMEOUT }, () => {
  it("create prints the new identity; show prints what the server stores", async () => {
    const created = await runStampd(["identity", "create", "--json"], {
      env: { STAMPD_URL: svc.baseUrl, STAMPD_API_KEY: key },
    });
    expect(created.code).toBe(0);
    const identity = JSON.parse(created.out);
    expect(await storedIdentity(identity.identity_id)).toEqual({ ...identity, stamp_count: 0 });

    const shown = await runStampd(["identity", "show", identity.identity_id, "--json", ...serverArgs(svc)]);
    expect(JSON.parse(shown.out)).toEqual(await storedIdentity(identity.identity_id));
    const human = await runStampd(["identity", "show", identity.identity_id, ...serverArgs(svc)]);
    expect(human.out).toMatch(new RegExp(`^identity\\s+${identity.identity_id}\\n`));
    expect(human.out).toMatch(/stamps signed\s+0/);
  });

  it("create in human form names the identity and its public key", async () => {
    const { code, out } = await runStampd(["identity", "create", ...serverArgs(svc, key)]);
    expect(code).toBe(0);
    const id = /^identity\s+([0-9a-f]{16})$/m.exec(out)![1]!;
    expect(out).toMatch(new RegExp(`public key\\s+ed25519:${id}[0-9a-f]{48}`));
    await storedIdentity(id);
  });

  it("create without a key and show of an unknown identity fail with one line, exit 1", async () => {
    const anonymous = await runStampd(["identity", "create", ...serverArgs(svc)]);
    expect(anonymous).toMatchObject({ code: 1, out: "" });
    expect(anonymous.err).toMatch(/^stampd: .+ \(missing_api_key, HTTP 401\)\n$/);
    const unknown = await runStampd(["identity", "show", "0123456789abcdef", ...serverArgs(svc)]);
    expect(unknown).toMatchObject({ code: 1, out: "" });
    expect(unknown.err).toMatch(/\(identity_not_found, HTTP 404\)\n$/);
  });
});
