import { Writable } from "node:stream";
import { pino } from "pino";
import { expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { issueKey } from "../helpers/keys.js";
import { startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "./fixture.js";

it("never writes the escrowed key to the log, even at trace level and on failures", async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const clock = new ManualClock();
  const logger = pino({ level: "trace" }, sink);
  const svc = await startService(
    { RATE_LIMIT_ENABLED: "false" },
    { clock, logger, events: new MemoryEventBus() },
  );
  try {
    const { key } = await issueKey(svc);
    const recipient = newRecipient();
    const call = (path: string, body: unknown) =>
      fetch(`${svc.baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const body = {
      encrypted_key: encryptedKey,
      heartbeat_deadline: 60,
      recipient_public_key: recipient.publicKey,
    };
    const vault = await (await call("/vault/create", body)).json();
    await call("/vault/create", { ...body, heartbeat_deadline: 1 });
    clock.advance(61_000);
    await svc.service.vault.scheduler.tick();
    const { proofOfIdentity, signedAt } = recipient.prove(vault.id, clock.now().toISOString());
    const retrieved = await call(`/vault/${vault.id}/retrieve`, {
      proof_of_identity: proofOfIdentity,
      signed_at: signedAt,
    });
    expect((await retrieved.json()).encrypted_key).toBe(encryptedKey);
  } finally {
    await svc.close();
  }
  expect(lines.length).toBeGreaterThan(0);
  expect(lines.join("")).not.toContain(encryptedKey);
});
