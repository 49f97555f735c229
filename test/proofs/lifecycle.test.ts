import { afterEach, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { getJson, stampHash, startProofService } from "./helpers.js";

type StampResponse = components["schemas"]["StampResponse"];
type VerifyResponse = components["schemas"]["VerifyResponse"];

let running: Awaited<ReturnType<typeof startProofService>> | undefined;
afterEach(async () => {
  await running?.svc.close();
  running = undefined;
});

describe("stamp status lifecycle", () => {
  it("goes pending -> confirmed -> anchored with stamp_confirmed and stamp_anchored", async () => {
    running = await startProofService();
    const { svc, events, tick } = running;
    const { id } = await stampHash(svc, ["log"]);
    expect((await getJson<StampResponse>(svc, `/stamps/${id}`)).status).toBe("pending");
    expect((await fetch(`${svc.baseUrl}/stamps/${id}/proof`)).status).toBe(409);

    await tick();

    const stamp = await getJson<StampResponse>(svc, `/stamps/${id}`);
    expect(stamp.status).toBe("anchored");
    expect(stamp.anchors).toEqual([
      { type: "log", status: "confirmed", reference: "0", confirmed_at: "2026-03-01T12:00:00.000Z" },
    ]);
    // service 1 + sealed 1 + in the log 3 (the confirmed log anchor)
    expect(stamp.trust_score).toBe(5);
    expect(stamp.trust_met).toBe(true);
    const types = events.filter((e) => e.type !== "stamp_created").map((e) => e.type);
    expect(types).toEqual(["stamp_confirmed", "stamp_anchored"]);
    const confirmed = events.find((e) => e.type === "stamp_confirmed")!;
    expect(confirmed.data).toMatchObject({
      stampId: id,
      proof: { merkleRoot: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(events.find((e) => e.type === "stamp_anchored")!.data).toEqual({
      stampId: id,
      chain: "log",
      txHash: "0",
      timestamp: "2026-03-01T12:00:00.000Z",
    });
  });

  // Before issue #22 these anchors read `pending` forever, counted +1 each, and the stamp read
  // `anchored` once the log confirmed: all three overstated what this deployment had done.
  it("reports an anchor without an endpoint unavailable with its reason: no points, not anchored", async () => {
    running = await startProofService();
    const { svc, tick } = running;
    const { id } = await stampHash(svc, ["log", "bitcoin", "ethereum"]);
    await tick();
    const stamp = await getJson<StampResponse>(svc, `/stamps/${id}`);
    expect(stamp.status).toBe("confirmed");
    expect(stamp.anchors.slice(1)).toEqual([
      {
        type: "bitcoin",
        status: "unavailable",
        reason: "no OpenTimestamps calendar configured (OTS_CALENDAR_URLS)",
      },
      {
        type: "ethereum",
        status: "unavailable",
        reason: "no Ethereum node configured (ETHEREUM_RPC_URL and ETHEREUM_FROM)",
      },
    ]);
    const verified = await (await fetch(`${svc.baseUrl}/stamps/${id}/verify`, { method: "POST" })).json();
    expect(verified as VerifyResponse).toMatchObject({
      confirmed_anchors: 1,
      pending_anchors: 0,
      // service 1 + sealed 1 + logged 3; the unavailable anchors nothing
      trust_score: 1 + 1 + 3,
    });
  });

  it("leaves a stamp that asked for no anchor confirmed", async () => {
    running = await startProofService();
    const { svc, events, tick } = running;
    const { id } = await stampHash(svc, []);
    await tick();
    expect((await getJson<StampResponse>(svc, `/stamps/${id}`)).status).toBe("confirmed");
    expect(events.map((e) => e.type)).toEqual(["stamp_created", "stamp_confirmed"]);
  });

  it("seals every waiting stamp in one batch with one signature", async () => {
    running = await startProofService();
    const { svc, tick } = running;
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await stampHash(svc)).id);
    await tick();
    const proofs = await Promise.all(
      ids.map((id) => getJson<{ batch: { id: string; tree_size: number } }>(svc, `/stamps/${id}/proof`)),
    );
    expect(new Set(proofs.map((p) => p.batch.id)).size).toBe(1);
    expect(proofs[0]!.batch.tree_size).toBe(5);
  });

  it("starts a pass without waiting for the interval once BATCH_MAX stamps were created", async () => {
    running = await startProofService({ BATCH_MAX: "3" });
    const { svc } = running;
    const ids = [(await stampHash(svc)).id, (await stampHash(svc)).id];
    expect((await getJson<StampResponse>(svc, `/stamps/${ids[0]}`)).status).toBe("pending");
    ids.push((await stampHash(svc)).id);
    // The third stamp_created queued a pass; stop() waits for it (the interval is an hour).
    await svc.service.proofs.pipeline.stop();
    for (const id of ids)
      expect((await getJson<StampResponse>(svc, `/stamps/${id}`)).status).toBe("anchored");
  });

  it("splits a backlog into batches of BATCH_MAX", async () => {
    running = await startProofService({ BATCH_MAX: "2" });
    const { svc, tick } = running;
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await stampHash(svc)).id);
    await tick();
    const sizes = await Promise.all(
      ids.map(
        async (id) =>
          (await getJson<{ batch: { tree_size: number } }>(svc, `/stamps/${id}/proof`)).batch.tree_size,
      ),
    );
    expect(sizes).toEqual([2, 2, 2, 2, 1]);
  });
});
