import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { getJson, stampHash, startProofService } from "./helpers.js";

type StampResponse = components["schemas"]["StampResponse"];

let running: Awaited<ReturnType<typeof startProofService>> | undefined;
afterEach(async () => {
  await running?.svc.close();
  running = undefined;
});

/** Rewrites a stamp's stored document text in the service's SQLite file, as an operator could. */
function rewriteStored(dataDir: string, stampId: string, rewrite: (text: string) => string): void {
  const db = new Database(`${dataDir}/stampd.db`);
  try {
    const { stamp_json } = db.prepare("SELECT stamp_json FROM stamps WHERE id = ?").get(stampId) as {
      stamp_json: string;
    };
    db.prepare("UPDATE stamps SET stamp_json = ? WHERE id = ?").run(rewrite(stamp_json), stampId);
  } finally {
    db.close();
  }
}

// A stamp's read checks that its stored document is still the one its batch sealed (issue #22) and
// whether a checkpoint covers the batch; issue #24 made both cheaper, and these hold the answers.
describe("reading a sealed stamp's evidence", () => {
  it("asks for the latest checkpoint only until one was seen covering the batch", async () => {
    running = await startProofService();
    const { svc, tick } = running;
    const { id } = await stampHash(svc, ["bitcoin"]);
    await tick();
    const log = svc.service.ctx.store.log;
    const latest = log.latestCheckpoint.bind(log);
    let asked = 0;
    log.latestCheckpoint = () => {
      asked++;
      return latest();
    };
    const first = await getJson<StampResponse>(svc, `/stamps/${id}`);
    const again = await getJson<StampResponse>(svc, `/stamps/${id}`);
    expect(again).toEqual(first);
    // sealed + in the log (no `log` anchor was asked for, so the checkpoint says so)
    expect(first.status).toBe("confirmed");
    expect(first.trust_score).toBeGreaterThan((await stampAlone(svc)).trust_score);
    expect(asked).toBe(1);
  });

  it("still finds the sealed document when its stored text was rewritten without changing it", async () => {
    running = await startProofService();
    const { svc, tick } = running;
    const { id } = await stampHash(svc, ["bitcoin"]);
    await tick();
    const before = await getJson<StampResponse>(svc, `/stamps/${id}`);
    rewriteStored(svc.dataDir, id, (text) => JSON.stringify(JSON.parse(text), null, 2));
    expect(await getJson<StampResponse>(svc, `/stamps/${id}`)).toEqual(before);
  });

  it("reports a stored document changed after sealing as no longer sealed", async () => {
    running = await startProofService();
    const { svc, tick } = running;
    const { id } = await stampHash(svc, ["bitcoin"]);
    await tick();
    rewriteStored(svc.dataDir, id, (text) => {
      const document = JSON.parse(text);
      document.created_at = "2020-01-01T00:00:00.000Z";
      return JSON.stringify(document);
    });
    const stamp = await getJson<StampResponse>(svc, `/stamps/${id}`);
    expect(stamp.anchors).toEqual([
      { type: "bitcoin", status: "failed", reason: "the stored stamp is not the document its batch sealed" },
    ]);
  });
});

/** A stamp no batch holds yet, for its trust score without a seal or a log entry. */
async function stampAlone(svc: Parameters<typeof stampHash>[0]): Promise<StampResponse> {
  const { id } = await stampHash(svc, ["bitcoin"]);
  return getJson<StampResponse>(svc, `/stamps/${id}`);
}
