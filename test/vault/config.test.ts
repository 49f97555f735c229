import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { ConfigError, loadConfig } from "../../server/config.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { createLogger } from "../../server/logger.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { createVaultDomain } from "../../server/vault/domain.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";
import { randomSigner } from "./fixture.js";

const dataDir = mkdtempSync(join(tmpdir(), "stampd-vault-config-"));
const store = new SqliteStore(":memory:");
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function domain(env: Record<string, string>) {
  const config = loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dataDir, ...env });
  const parts = {
    config,
    logger: createLogger(config),
    clock: new ManualClock(),
    store,
    events: new MemoryEventBus(),
  };
  return createVaultDomain(parts);
}

describe("vault configuration", () => {
  it.each(["VAULT_CREATE_FEE", "VAULT_HEARTBEAT_FEE"])(
    "bounds %s like a receipt amount: below 10^15",
    (name) => {
      expect(
        loadConfig({ [name]: "999999999999999.999999999999999999" })[name as "VAULT_HEARTBEAT_FEE"],
      ).toBe("999999999999999.999999999999999999");
      expect(() => loadConfig({ [name]: "1000000000000000" })).toThrow(name);
    },
  );

  it.each([
    [{}, "FEE_ISSUER_PUBLIC_KEYS"],
    [{ FEE_ISSUER_PUBLIC_KEYS: randomSigner().publicKey }, "VAULT_FEE_RECIPIENT"],
  ])("refuses to start in production without fee settings (%j)", (env, missing) => {
    expect(() => domain({ NODE_ENV: "production", ...env })).toThrow(ConfigError);
    expect(() => domain({ NODE_ENV: "production", ...env })).toThrow(missing);
  });

  it("refuses a minimum deadline above the maximum", () => {
    expect(() => domain({ VAULT_MIN_DEADLINE_SECONDS: "7200", VAULT_MAX_DEADLINE_SECONDS: "3600" })).toThrow(
      ConfigError,
    );
  });

  it.each(["0.1.2", "-1", "1e2", "0.0000000000000000001"])("refuses the fee %j", (fee) => {
    expect(() => loadConfig({ VAULT_HEARTBEAT_FEE: fee })).toThrow("VAULT_HEARTBEAT_FEE");
  });

  it("trusts only the configured issuers when FEE_ISSUER_PUBLIC_KEYS is set, never the dev key", async () => {
    const issuer = randomSigner();
    const vault = domain({
      NODE_ENV: "production",
      FEE_ISSUER_PUBLIC_KEYS: issuer.publicKey,
      VAULT_FEE_RECIPIENT: "0xfee",
    });
    const { currency, recipient, heartbeatFee } = vault.deps.fees;
    const request = {
      amount: "0.50",
      currency,
      recipient,
      issuedAt: new Date("2026-01-01T00:00:00Z"),
      expiresInSeconds: 60,
    };
    const fromDev = issueReceipt(devIssuer(dataDir, createLogger({ LOG_LEVEL: "silent" })), request);
    const purpose = { what: "a heartbeat", usedFor: "test" };
    await expect(vault.deps.receipts.accept(fromDev, heartbeatFee, purpose)).rejects.toMatchObject({
      reason: "fee_receipt_invalid",
    });
    await expect(
      vault.deps.receipts.accept(issueReceipt(issuer, request), heartbeatFee, purpose),
    ).resolves.toMatchObject({
      amount: "0.5",
      recipient: "0xfee",
    });
  });
});
