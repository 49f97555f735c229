import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";
import { RestFixture } from "../vault/rest-fixture.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

// vault list | release | burn | retrieve | group against a real service, checked against what the
// server then holds.
let f: RestFixture;
let key: string;
let dir: string;
const keyBytes = randomBytes(40);

beforeAll(async () => {
  f = await RestFixture.start({}, new ManualClock(new Date()));
  key = (await f.key()).key;
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-vault-manage-"));
});
afterAll(async () => {
  await f.close();
  rmSync(dir, { recursive: true, force: true });
});

const vaultArgs = (...args: string[]) => ["vault", ...args, ...serverArgs(f.svc, key)];
const newVault = (overrides: Record<string, unknown> = {}) =>
  f.createVault(key, { encrypted_key: keyBytes.toString("base64"), ...overrides });

describe("stampd vault (management)", { timeout: SPAWNS_TIMEOUT }, () => {
  it("list prints every vault of the account, and --state filters", async () => {
    const a = await newVault();
    const b = await newVault({ allow_manual_release: true });
    await f.call("POST", `/vault/${b.id}/release`, key, { reason: "done" });
    const all = await runStampd(vaultArgs("list", "--json", "--limit", "1"));
    expect(all.code).toBe(0);
    const ids = (JSON.parse(all.out) as { id: string }[]).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    const released = await runStampd(vaultArgs("list", "--state", "released"));
    expect(released.code).toBe(0);
    expect(released.out).toMatch(/^ID\s+STATE\s+DEADLINE\s+HEARTBEATS$/m);
    expect(released.out).toContain(b.id);
    expect(released.out).not.toContain(a.id);
    const wrong = await runStampd(vaultArgs("list", "--state", "asleep"));
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/HTTP 400\)\n$/);
  });

  it("release then retrieve (owner-bound) writes the escrowed key to a 0600 file", async () => {
    const vault = await newVault({ allow_manual_release: true, recipient_public_key: undefined });
    const released = await runStampd(vaultArgs("release", vault.id, "--reason", "handover"));
    expect(released.code).toBe(0);
    expect(released.out).toMatch(/^reason\s+handover$/m);
    expect((await f.call("GET", `/vault/${vault.id}`, key)).body.state).toBe("released");
    const out = join(dir, "owner.key");
    const got = await runStampd(vaultArgs("retrieve", vault.id, "--out", out));
    expect(got.code).toBe(0);
    expect(got.out).toContain(`${keyBytes.length} bytes written to ${out}`);
    expect(readFileSync(out)).toEqual(keyBytes);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    // Never over an existing file.
    const again = await runStampd(vaultArgs("retrieve", vault.id, "--out", out));
    expect(again).toMatchObject({
      code: 2,
      err: `stampd: cannot write ${out}: it exists (never overwritten)\n`,
    });
  });

  it("retrieve signs with the recipient's key for a vault with a recipient", async () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = join(dir, "recipient.pem");
    writeFileSync(pem, privateKey.export({ format: "pem", type: "pkcs8" }));
    const vault = await newVault({
      allow_manual_release: true,
      recipient_public_key: ed25519Signer(privateKey).publicKey,
    });
    await f.call("POST", `/vault/${vault.id}/release`, key, { reason: "test" });
    const out = join(dir, "recipient.key");
    const got = await runStampd(vaultArgs("retrieve", vault.id, "--out", out, "--recipient-key", pem));
    expect(got.code).toBe(0);
    expect(readFileSync(out)).toEqual(keyBytes);
    // Without the recipient's signature the server refuses.
    const refused = await runStampd(vaultArgs("retrieve", vault.id, "--out", join(dir, "x.key")));
    expect(refused.code).toBe(1);
  });

  it("burn needs --yes, then destroys the key", async () => {
    const vault = await newVault();
    const unconfirmed = await runStampd(vaultArgs("burn", vault.id, "--reason", "leaked"));
    expect(unconfirmed).toMatchObject({ code: 2, out: "" });
    expect(unconfirmed.err).toContain("--yes");
    expect((await f.call("GET", `/vault/${vault.id}`, key)).body.state).toBe("active");
    const burned = await runStampd(vaultArgs("burn", vault.id, "--reason", "leaked", "--yes", "--json"));
    expect(burned.code).toBe(0);
    expect(JSON.parse(burned.out)).toMatchObject({ vault_id: vault.id, burned: true, reason: "leaked" });
    expect((await f.call("GET", `/vault/${vault.id}`, key)).body.state).toBe("burned");
  });

  it("group create, then group heartbeat renews every member with one receipt", async () => {
    const [a, b] = [await newVault(), await newVault()];
    const created = await runStampd(
      vaultArgs("group", "create", "pair", a.id, b.id, "--interval", "2d", "--json"),
    );
    expect(created.code).toBe(0);
    const group = JSON.parse(created.out);
    expect(group).toMatchObject({ name: "pair", vault_ids: [a.id, b.id], interval: 172_800 });
    expect((await f.call("GET", `/vault/${a.id}`, key)).body.group_id).toBe(group.id);

    const beat = await runStampd(vaultArgs("group", "heartbeat", a.id, b.id, "--fee-receipt", "-"), {
      input: f.receipt("1.00"),
    });
    expect(beat.code).toBe(0);
    expect(beat.out).toMatch(/^renewed\s+2$/m);
    for (const id of [a.id, b.id])
      expect((await f.call("GET", `/vault/${id}`, key)).body.heartbeat_count).toBe(1);
  });
});
