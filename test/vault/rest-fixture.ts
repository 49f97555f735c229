import { ManualClock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { createLogger } from "../../server/logger.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueReceipt } from "../../server/vault/fees/issue.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "./fixture.js";

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: replies are checked by the tests' expectations, and the server validates them against the spec
  body: any;
}

/**
 * A whole service on a real SQLite file with a ManualClock and a recording event bus. Rate limiting
 * is off: these tests are about the vault, and they make many requests with one key.
 */
export class RestFixture {
  readonly events: AnyDomainEvent[] = [];
  readonly recipient = newRecipient();

  private constructor(
    readonly svc: RunningService,
    readonly clock: ManualClock,
  ) {}

  static async start(env: Record<string, string> = {}, clock = new ManualClock()): Promise<RestFixture> {
    const events = new MemoryEventBus();
    const svc = await startService({ RATE_LIMIT_ENABLED: "false", ...env }, { clock, events });
    const fixture = new RestFixture(svc, clock);
    events.subscribe((e) => fixture.events.push(e));
    return fixture;
  }

  key(opts: { accountId?: string } = {}) {
    return issueKey(this.svc, opts);
  }

  async call(
    method: string,
    path: string,
    key?: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const res = await fetch(`${this.svc.baseUrl}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  receipt(amount: string): string {
    const { currency, recipient } = this.svc.service.vault.deps.fees;
    const issuer = devIssuer(this.svc.dataDir, createLogger({ LOG_LEVEL: "silent" }));
    return issueReceipt(issuer, {
      amount,
      currency,
      recipient,
      issuedAt: this.clock.now(),
      expiresInSeconds: 3600,
    });
  }

  createBody(overrides: Record<string, unknown> = {}) {
    return {
      encrypted_key: encryptedKey,
      heartbeat_deadline: 86_400,
      recipient_public_key: this.recipient.publicKey,
      ...overrides,
    };
  }

  async createVault(key: string, overrides: Record<string, unknown> = {}) {
    const reply = await this.call("POST", "/vault/create", key, this.createBody(overrides));
    if (reply.status !== 201)
      throw new Error(`create answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body as { id: string; deadline: string };
  }

  proof(vaultId: string) {
    const { proofOfIdentity, signedAt } = this.recipient.prove(vaultId, this.clock.now().toISOString());
    return { proof_of_identity: proofOfIdentity, signed_at: signedAt };
  }

  tick() {
    return this.svc.service.vault.scheduler.tick();
  }

  close() {
    return this.svc.close();
  }
}
