import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { Idempotency } from "../../server/idempotency/idempotency.js";
import type { Store } from "../../server/store/store.js";
import type { TestDatabase, TestEngine } from "../store/engines.js";

const id = { scope: "account:acc_1", key: "k-1", operation: "createVault" };
const response = {
  status: 201,
  headers: { "content-type": "application/json" },
  body: Buffer.from('{"ok":true}'),
};

/** Idempotency-Key records on a database engine. */
export function idempotencySuite(engine: TestEngine) {
  describe(engine.name, () => {
    let db: TestDatabase;
    let store: Store;
    let clock: ManualClock;
    let idem: Idempotency;
    beforeEach(async () => {
      db = await engine.create();
      store = await db.open();
      clock = new ManualClock();
      idem = new Idempotency(store.idempotency, clock, 60_000);
    });
    afterEach(() => db.drop());

    describe("Idempotency", () => {
      it("lets the first request proceed and replays its response to a matching retry", async () => {
        expect(await idem.begin(id, "fp")).toEqual({ outcome: "proceed" });
        await idem.complete(id, response);
        expect(await idem.begin(id, "fp")).toEqual({ outcome: "replay", response });
      });

      it("refuses a different fingerprint (idempotency_key_reused), before and after completion", async () => {
        await idem.begin(id, "fp");
        await expect(idem.begin(id, "other")).rejects.toMatchObject({
          code: "conflict",
          reason: "idempotency_key_reused",
        });
        await idem.complete(id, response);
        await expect(idem.begin(id, "other")).rejects.toMatchObject({ reason: "idempotency_key_reused" });
      });

      it("refuses a retry while the first runs (idempotency_key_in_use), then lets one take over an abandoned key", async () => {
        await idem.begin(id, "fp");
        await expect(idem.begin(id, "fp")).rejects.toMatchObject({ reason: "idempotency_key_in_use" });
        clock.advance(60_000);
        expect(await idem.begin(id, "fp")).toEqual({ outcome: "proceed" });
        await expect(idem.begin(id, "fp")).rejects.toMatchObject({ reason: "idempotency_key_in_use" });
      });

      it("runs again after a release (a failure not worth replaying)", async () => {
        await idem.begin(id, "fp");
        await idem.release(id);
        expect(await idem.begin(id, "other")).toEqual({ outcome: "proceed" });
      });

      it("forgets keys after 24 hours and purges expired records", async () => {
        await idem.begin(id, "fp");
        await idem.complete(id, response);
        await idem.begin({ ...id, key: "k-2" }, "fp");
        clock.advance(24 * 3_600_000);
        expect(await idem.begin(id, "other")).toEqual({ outcome: "proceed" });
        const rows = await db.rows("SELECT idempotency_key FROM idempotency_keys");
        expect(rows).toEqual([{ idempotency_key: "k-1" }]);
      });
    });
  });
}
