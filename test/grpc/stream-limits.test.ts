// StreamStamps charges the requests it reads together at once to the bulk items budget, and when
// the budget does not hold them all, request by request: those it holds are answered, the first
// refused ends the call.
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { type RunningService, startService } from "../helpers/service.js";
import { connectClient, sha256 } from "./fixture.js";

let svc: RunningService;
// A manual clock: no tokens come back while the test runs.
beforeAll(async () => {
  svc = await startService({}, { clock: new ManualClock() });
});
afterAll(() => svc.close());

it("answers the requests the budget holds, then ends with RESOURCE_EXHAUSTED naming the next", async () => {
  // The anonymous bulk items budget holds 60 a minute (stamp.proto, Rate limiting): 60 pass, the 61st does not.
  const hashes = Array.from({ length: 66 }, (_, i) => sha256(`limited ${i}`));
  async function* requests() {
    for (const contentHash of hashes) yield { contentHash };
  }
  const sequences: number[] = [];
  const error = await (async () => {
    for await (const res of connectClient(svc).streamStamps(requests())) sequences.push(res.sequence);
  })().then(
    () => expect.fail("the stream ended without an error"),
    (e: unknown) => ConnectError.from(e),
  );
  expect(error.code).toBe(Code.ResourceExhausted);
  expect(error.rawMessage).toMatch(/^request 61: Item limit exceeded for tier anonymous/);
  expect(sequences).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  const stored = svc.service.ctx.store as unknown as {
    db: { prepare(sql: string): { get(): { n: number } } };
  };
  expect(stored.db.prepare("SELECT count(*) AS n FROM stamps").get().n).toBe(60);
});
