import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timeLeft } from "../../cli/commands/vault.js";
import { ManualClock } from "../../server/clock.js";
import { RestFixture } from "../vault/rest-fixture.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

// The service's clock stands at the real time the suite starts, so that the time left the CLI
// computes from this machine's clock is about the server's.
let f: RestFixture;
let key: string;
let dir: string;
const keyBytes = randomBytes(48);

beforeAll(async () => {
  f = await RestFixture.start({}, new ManualClock(new Date()));
  key = (await f.key()).key;
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-vault-"));
  writeFileSync(join(dir, "key.age"), keyBytes);
});
afterAll(async () => {
  await f.close();
  rmSync(dir, { recursive: true, force: true });
});

const vaultArgs = (...args: string[]) => ["vault", ...args, ...serverArgs(f.svc, key)];
const createArgs = (keyFile: string, ...more: string[]) =>
  vaultArgs("create", keyFile, "--deadline", "30d", "--recipient", f.recipient.publicKey, ...more);

describe("stampd vault", { timeout: SPAWNS_TIMEOUT }, () => {
  it("create → heartbeat → status: the server's vault at each step", async () => {
    const created = await runStampd(
      createArgs(
        join(dir, "key.age"),
        "--content-uri",
        "https://files.example.org/a.age",
        "--content-uri",
        "s3://bucket-name/a.age",
        "--metadata",
        "label=estate",
        "--allow-manual-release",
        "--json",
      ),
    );
    expect(created.code).toBe(0);
    const vault = JSON.parse(created.out);
    expect((await f.call("GET", `/vault/${vault.id}`, key)).body).toEqual(vault);
    expect(vault).toMatchObject({
      state: "active",
      content_uris: ["https://files.example.org/a.age", "s3://bucket-name/a.age"],
      metadata: { label: "estate" },
      allow_manual_release: true,
    });
    expect(Date.parse(vault.deadline) - Date.parse(vault.created_at)).toBe(30 * 86_400_000);

    // A receipt from `stampd receipts issue`, piped in as a user would.
    const receipt = await runStampd(["receipts", "issue", "--amount", "0.50"], {
      env: { DATA_DIR: f.svc.dataDir },
    });
    expect(receipt.code).toBe(0);
    const beat = await runStampd(vaultArgs("heartbeat", vault.id, "--fee-receipt", "-", "--json"), {
      input: receipt.out,
    });
    expect(beat.code).toBe(0);
    const renewed = JSON.parse(beat.out);
    expect(renewed).toMatchObject({ vault_id: vault.id, fee_amount: "0.50", fee_currency: "USDC" });

    const status = await runStampd(vaultArgs("status", vault.id, "--json"));
    const stored = (await f.call("GET", `/vault/${vault.id}`, key)).body;
    expect(JSON.parse(status.out)).toEqual(stored);
    expect(stored).toMatchObject({ heartbeat_count: 1, deadline: renewed.next_deadline });

    const human = await runStampd(vaultArgs("status", vault.id));
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^state\s+active$/m);
    expect(human.out).toMatch(/^time left\s+29d 23h 5\dm$/m);
    expect(human.out).toMatch(/^heartbeats\s+1$/m);

    // The escrowed key is the file's bytes, as the recipient retrieves them after a release.
    await f.call("POST", `/vault/${vault.id}/release`, key, { reason: "test" });
    const retrieved = await f.call("POST", `/vault/${vault.id}/retrieve`, key, f.proof(vault.id));
    expect(Buffer.from(retrieved.body.encrypted_key, "base64")).toEqual(keyBytes);
  });

  it("create reads the key from standard input with -, and heartbeat prints the renewal", async () => {
    const created = await runStampd(createArgs("-"), { input: keyBytes });
    expect(created.code).toBe(0);
    const id = /^vault\s+(vlt_\S+)$/m.exec(created.out)![1]!;
    expect(created.out).toMatch(/^last heartbeat\s+never$/m);
    const receipt = f.receipt("0.50");
    const beat = await runStampd(vaultArgs("heartbeat", id, "--fee-receipt", receipt));
    expect(beat.code).toBe(0);
    expect(beat.out).toMatch(/^fee\s+0\.50 USDC$/m);
    expect(beat.out).toMatch(/^next deadline\s+\S+ \(in 29d 23h 5\dm\)$/m);

    const again = await runStampd(vaultArgs("heartbeat", id, "--fee-receipt", receipt));
    expect(again).toMatchObject({ code: 1, out: "" });
    expect(again.err).toMatch(/^stampd: .+ \(fee_receipt_used, HTTP 409\)\n$/);
  });

  it("errors: unknown vault and bad key exit 1; bad options and a missing key file exit 2", async () => {
    const unknown = await runStampd(vaultArgs("status", "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M"));
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/\(vault_not_found, HTTP 404\)\n$/);
    const badKey = await runStampd([
      "vault",
      "status",
      "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M",
      ...serverArgs(f.svc, `svc_test_${"B".repeat(43)}`),
    ]);
    expect(badKey.err).toMatch(/^stampd: .+ \(invalid_api_key, HTTP 401\)\n$/);
    expect(badKey.code).toBe(1);
    // No --deadline (a recipient is optional since vaults may be owner-bound).
    expect((await runStampd(vaultArgs("create", join(dir, "key.age")))).code).toBe(2);
    expect((await runStampd(createArgs(join(dir, "key.age"), "--deadline", "soon"))).code).toBe(2);
    const missing = await runStampd(createArgs(join(dir, "nope.age")));
    expect(missing).toMatchObject({
      code: 2,
      err: `stampd: cannot read ${join(dir, "nope.age")}: no such file\n`,
    });
  });
});

describe("timeLeft", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it.each([
    ["2026-01-31T00:00:00Z", "30d 0h 0m"],
    ["2026-01-01T02:03:59Z", "2h 3m"],
    ["2026-01-01T00:00:42Z", "42s"],
    ["2026-01-01T00:00:00Z", "none (the deadline has passed)"],
  ])("until %s is %s", (deadline, text) => {
    expect(timeLeft(deadline, now)).toBe(text);
  });
});
