import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { devIssuerKeyPath } from "../../server/vault/fees/dev-issuer.js";
import { decodeReceipt, parsePayload } from "../../server/vault/fees/receipt.js";
import { RestFixture } from "./rest-fixture.js";

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), "stampd-receipts-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function stampd(...args: string[]) {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    LOG_LEVEL: "silent",
    NODE_ENV: "development",
  };
  return run(process.execPath, ["bin/stampd.js", ...args], { env });
}

describe("stampd receipts issue", () => {
  it("prints one receipt for the configured currency and recipient, signed by the dev issuer key", async () => {
    // A fresh DATA_DIR: the issuer key is created only when asked (--init).
    const { stdout, stderr } = await stampd(
      "receipts",
      "issue",
      "--amount",
      "0.50",
      "--expires-in",
      "600",
      "--init",
    );
    expect(stderr).toBe(`stampd: signed with ${devIssuerKeyPath(dataDir)}\n`);
    const receipt = stdout.trim();
    expect(receipt).toMatch(/^rcpt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{86}$/);
    const payload = parsePayload(decodeReceipt(receipt)!.payloadBytes)!;
    expect(payload).toMatchObject({
      amount: "0.50",
      currency: "USDC",
      recipient: "stampd-dev-fee-recipient",
    });
    expect(payload.id).toMatch(/^rcp_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(Date.parse(payload.expires_at) - Date.parse(payload.issued_at)).toBe(600_000);
    expect(statSync(devIssuerKeyPath(dataDir)).mode & 0o077).toBe(0);
  });

  it("takes --currency and --recipient, and refuses a non-decimal amount", async () => {
    const { stdout } = await stampd(
      "receipts",
      "issue",
      "--amount",
      "3",
      "--currency",
      "EURC",
      "--recipient",
      "0xabc",
    );
    expect(parsePayload(decodeReceipt(stdout.trim())!.payloadBytes)).toMatchObject({
      currency: "EURC",
      recipient: "0xabc",
    });
    await expect(stampd("receipts", "issue", "--amount", "0.5e1")).rejects.toMatchObject({
      stderr: expect.stringContaining("expected a decimal"),
    });
  });

  it("pays a heartbeat on a server sharing its DATA_DIR", async () => {
    // The CLI stamps receipts with the real time, so the server's clock must be real too.
    const service = await RestFixture.start({ DATA_DIR: dataDir }, new ManualClock(new Date()));
    try {
      const { key } = await service.key();
      const vault = await service.createVault(key);
      const { stdout } = await stampd("receipts", "issue", "--amount", "0.50");
      const reply = await service.call("POST", `/vault/${vault.id}/heartbeat`, key, {
        fee_receipt: stdout.trim(),
      });
      expect(reply).toMatchObject({ status: 200, body: { fee_amount: "0.50" } });
    } finally {
      await service.close();
    }
  });
});
