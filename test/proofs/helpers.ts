import { createHash } from "node:crypto";
import { ManualClock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import type { AnchorType } from "../../server/stamps/stamp-settings.js";
import { type RunningService, startService } from "../helpers/service.js";

/**
 * A service whose proof pipeline runs only when the test calls `tick()` (the timer's interval is
 * an hour), on a ManualClock, recording every domain event.
 */
export async function startProofService(env: Record<string, string> = {}) {
  const clock = new ManualClock("2026-03-01T12:00:00.000Z");
  const svc = await startService(
    { BATCH_INTERVAL_MS: "3600000", RATE_LIMIT_ENABLED: "false", ...env },
    { clock },
  );
  const events: AnyDomainEvent[] = [];
  svc.service.ctx.events.subscribe((event) => events.push(event));
  return { svc, clock, events, tick: () => svc.service.proofs.pipeline.tick() };
}

let counter = 0;

/** Stamps a fresh SHA-256 hash through the domain (as gRPC does); returns the stamp id and hash. */
export async function stampHash(svc: RunningService, anchors: AnchorType[] = ["log"], content?: string) {
  const hex = createHash("sha256")
    .update(content ?? `document ${++counter} ${Math.random()}`)
    .digest("hex");
  const view = await svc.service.stamps.service.createFromHash({
    accountId: null,
    contentHash: { algorithm: "sha256", hex },
    anchors,
  });
  return { id: view.stamp.id, hex };
}

export const getJson = async <T>(svc: RunningService, path: string): Promise<T> => {
  const res = await fetch(`${svc.baseUrl}${path}`);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
};
