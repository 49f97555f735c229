import { describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { MINUTES_SHOWN, StampActivity } from "../../server/pages/stamp-activity.js";

const created = (bus: MemoryEventBus, timestamp: string) =>
  bus.publish({
    type: "stamp_created",
    data: {
      id: "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D",
      contentHash: `sha256:${"0".repeat(64)}`,
      timestamp,
      metadata: {},
    },
    scope: {},
  });

describe("StampActivity (the dashboard's stamp counts)", () => {
  it("counts stamps per minute of the last hour, oldest minute first", () => {
    const clock = new ManualClock("2026-01-01T10:00:10.000Z");
    const bus = new MemoryEventBus();
    const activity = new StampActivity(bus, clock);
    created(bus, "2026-01-01T10:00:01.000Z");
    created(bus, "2026-01-01T10:00:59.999Z");
    clock.advance(60_000);
    created(bus, "2026-01-01T10:01:20.000Z");
    const snapshot = activity.snapshot();
    expect(snapshot.from.toISOString()).toBe("2026-01-01T09:02:00.000Z");
    expect(snapshot.perMinute).toHaveLength(MINUTES_SHOWN);
    expect(snapshot.perMinute.slice(-2)).toEqual([2, 1]);

    clock.advance(59 * 60_000);
    expect(activity.snapshot().perMinute.slice(0, 1)).toEqual([1]);
    clock.advance(60_000);
    const later = activity.snapshot();
    expect(later.perMinute.every((n) => n === 0)).toBe(true);
  });

  it("ignores every other event", () => {
    const bus = new MemoryEventBus();
    const activity = new StampActivity(bus, new ManualClock());
    bus.publish({
      type: "vault_burned",
      data: {
        vaultId: "vlt_01JD3X7Q6V9M2K8T4R5N0B1C2D",
        burnedAt: "2026-01-01T00:00:00Z",
        reason: "owner_request",
        cause: "owner_request",
      },
      scope: {},
    });
    expect(activity.snapshot().perMinute.every((n) => n === 0)).toBe(true);
  });
});
