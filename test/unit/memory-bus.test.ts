import { describe, expect, it } from "vitest";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";

const event = (id: string) => ({
  type: "stamp_created" as const,
  data: { id, contentHash: `sha256:${"a".repeat(64)}`, timestamp: "2026-01-01T00:00:00.000Z", metadata: {} },
  scope: { stampId: id },
});

describe("the in-memory event bus", () => {
  it("delivers each event to every listener, in order, until unsubscribed", () => {
    const bus = new MemoryEventBus();
    const seen: string[] = [];
    const off = bus.subscribe((e: AnyDomainEvent) => seen.push(`a:${e.scope.stampId}`));
    bus.subscribe((e) => seen.push(`b:${e.scope.stampId}`));
    bus.publish(event("1"));
    off();
    bus.publish(event("2"));
    expect(seen).toEqual(["a:1", "b:1", "b:2"]);
  });

  it("keeps delivering when one listener throws", () => {
    const bus = new MemoryEventBus();
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error("boom");
    });
    bus.subscribe((e) => seen.push(e.type));
    bus.publish(event("1"));
    expect(seen).toEqual(["stamp_created"]);
  });
});
