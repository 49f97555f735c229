import { generateKeyPairSync, sign } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../server/clock.js";
import { loadConfig } from "../../server/config.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { ed25519Signer, type Signer } from "../../server/keys/ed25519.js";
import { createLogger } from "../../server/logger.js";
import type { Store } from "../../server/store/store.js";
import type { CreateVaultInput } from "../../server/vault/create.js";
import { createVaultDomain, type VaultDomain } from "../../server/vault/domain.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";
import { type ReceiptPayload, signReceipt } from "../../server/vault/fees/receipt.js";
import { retrievalMessage } from "../../server/vault/proof.js";
import { sqlite, type TestDatabase, type TestEngine } from "../store/engines.js";

/** A recipient's key pair and how it signs a retrieval proof. */
export interface Recipient {
  publicKey: string;
  prove(vaultId: string, signedAt: string): { proofOfIdentity: string; signedAt: string };
}

export function newRecipient(): Recipient {
  const { privateKey } = generateKeyPairSync("ed25519");
  return {
    publicKey: ed25519Signer(privateKey).publicKey,
    prove: (vaultId, signedAt) => ({
      proofOfIdentity: sign(null, Buffer.from(retrievalMessage(vaultId, signedAt)), privateKey).toString(
        "base64",
      ),
      signedAt,
    }),
  };
}

export function randomSigner(): Signer {
  return ed25519Signer(generateKeyPairSync("ed25519").privateKey);
}

export const encryptedKey = Buffer.from("age1-encrypted-key-material").toString("base64");

/**
 * The vault domain on a real database (SQLite by default, or any TestEngine) with a ManualClock and
 * a recording event bus: the domain-level tests drive it with plain account ids, as transports do
 * after authentication.
 */
export class VaultFixture {
  readonly clock = new ManualClock("2026-01-01T00:00:00.000Z");
  readonly events: AnyDomainEvent[] = [];
  readonly bus = new MemoryEventBus();
  readonly domain: VaultDomain;
  readonly issuer: Signer;
  readonly recipient = newRecipient();

  private constructor(
    readonly dataDir: string,
    readonly db: TestDatabase,
    readonly store: Store,
    private readonly env: Record<string, string>,
    private readonly ownsDatabase: boolean,
  ) {
    const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, ...env });
    const logger = createLogger(config);
    this.bus.subscribe((e) => this.events.push(e));
    this.domain = createVaultDomain({
      config,
      logger,
      clock: this.clock,
      store: this.store,
      events: this.bus,
    });
    this.issuer = devIssuer(dataDir, logger);
  }

  static async open(env: Record<string, string> = {}, engine: TestEngine = sqlite): Promise<VaultFixture> {
    const db = await engine.create();
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-vault-"));
    return new VaultFixture(dataDir, db, await db.open(), env, true);
  }

  /** Another instance on the same database and keys: its own connection, clock and events. */
  async twin(): Promise<VaultFixture> {
    return new VaultFixture(this.dataDir, this.db, await this.db.open(), this.env, false);
  }

  /** Reads the database directly (`?` placeholders), to check what is stored. */
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]> {
    return this.db.rows<T>(sql, ...params);
  }

  get vaults() {
    return this.domain.service;
  }

  /** A receipt from the trusted (development) issuer for the configured currency and recipient. */
  receipt(amount: string, overrides: Partial<ReceiptPayload> = {}, issuer: Signer = this.issuer): string {
    if (Object.keys(overrides).length === 0 && issuer === this.issuer) {
      const { currency, recipient } = this.domain.deps.fees;
      return issueReceipt(issuer, {
        amount,
        currency,
        recipient,
        issuedAt: this.clock.now(),
        expiresInSeconds: 86_400,
      });
    }
    return signReceipt({ ...this.payload(amount), ...overrides }, issuer);
  }

  payload(amount: string): ReceiptPayload {
    const now = this.clock.now();
    return {
      id: `rcp_${now.getTime()}_${Math.random().toString(36).slice(2)}`,
      amount,
      currency: this.domain.deps.fees.currency,
      recipient: this.domain.deps.fees.recipient,
      issued_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
    };
  }

  create(accountId: string, input: Partial<CreateVaultInput> = {}) {
    return this.vaults.create(accountId, {
      encryptedKey,
      heartbeatDeadline: 7 * 86_400,
      recipientPublicKey: this.recipient.publicKey,
      ...input,
    });
  }

  /** A proof signed now by the fixture's recipient. */
  proof(vaultId: string) {
    return this.recipient.prove(vaultId, this.clock.now().toISOString());
  }

  advance(seconds: number): void {
    this.clock.advance(seconds * 1000);
  }

  eventsOf(type: AnyDomainEvent["type"]) {
    return this.events.filter((e) => e.type === type);
  }

  async close(): Promise<void> {
    await this.domain.scheduler.stop();
    await this.store.close();
    if (!this.ownsDatabase) return;
    await this.db.drop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
