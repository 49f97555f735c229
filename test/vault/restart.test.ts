import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { startService } from "../helpers/service.js";
import { RestFixture } from "./rest-fixture.js";

const dataDir = mkdtempSync(join(tmpdir(), "stampd-restart-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function recordingBus() {
  const bus = new MemoryEventBus();
  const seen: AnyDomainEvent[] = [];
  bus.subscribe((e) => seen.push(e));
  return { bus, seen };
}

it("expires vaults that fell due while the service was down, once, as it starts", async () => {
  const clock = new ManualClock("2026-01-01T00:00:00.000Z");
  const first = await RestFixture.start({ DATA_DIR: dataDir }, clock);
  const { key } = await first.key();
  const short = await first.createVault(key, { heartbeat_deadline: 3600 });
  const long = await first.createVault(key, { heartbeat_deadline: 30 * 86_400 });
  await first.close();

  // Down for two hours: `short` passed its deadline meanwhile.
  clock.advance(2 * 3_600_000);
  const second = recordingBus();
  const restarted = await startService(
    { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" },
    { clock, events: second.bus },
  );
  expect(second.seen.map((e) => [e.type, e.scope.vaultId])).toEqual([["vault_expired", short.id]]);
  expect(second.seen[0]!.data).toEqual({
    vaultId: short.id,
    expiredAt: "2026-01-01T02:00:00.000Z",
    deadline: "2026-01-01T01:00:00.000Z",
  });
  await restarted.service.vault.scheduler.tick();
  await restarted.close();

  // A third start finds nothing left to do.
  const third = recordingBus();
  const again = await startService(
    { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" },
    { clock, events: third.bus },
  );
  expect(third.seen).toEqual([]);
  const res = await fetch(`${again.baseUrl}/vault/${long.id}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(await res.json()).toMatchObject({ state: "active" });
  const stats = await (await fetch(`${again.baseUrl}/explorer/api/stats`)).json();
  expect(stats).toMatchObject({ total_vaults: 2, active_vaults: 1, total_releases: 1 });
  await again.close();
});
