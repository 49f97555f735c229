import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, fetchProofBundle, verifyProofBundle } from "../../sdk/src/index.js";
import { getJson, stampHash, startProofService } from "../proofs/helpers.js";
import { STUB_BLOCK_HEIGHT, stubCalendar } from "./stub-calendar.js";
import { stubServer } from "./stub-server.js";

const sha256hex = (...parts: (Buffer | Uint8Array)[]) =>
  createHash("sha256").update(Buffer.concat(parts)).digest("hex");

/** What Debian's python3-opentimestamps reads in a .ots file (test/anchors/read-ots.py). */
interface OtsReading {
  hash_op: string;
  file_digest: string;
  messages: string[];
  attestations: ({ pending: string } | { bitcoin: number })[] & { commitment: string }[];
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function readWithPython(ots: Uint8Array): OtsReading {
  const dir = mkdtempSync(join(tmpdir(), "stampd-ots-"));
  try {
    writeFileSync(join(dir, "stamp.ots"), ots);
    // Debian's interpreter: the package installs the library for it (test/environment/requirements.ts).
    const out = execFileSync("/usr/bin/python3", [
      join(import.meta.dirname, "read-ots.py"),
      join(dir, "stamp.ots"),
    ]);
    return JSON.parse(out.toString()) as OtsReading;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function calendar() {
  const stub = await stubCalendar();
  stops.push(stub.close);
  return stub;
}

describe("GET /stamps/{id}/timestamp.ots, read by python3-opentimestamps", () => {
  it("leads from each document's SHA-256 to its batch root and the calendar's pending attestation, then to the Bitcoin attestation", async () => {
    const cal = await calendar();
    const running = await startProofService({ OTS_CALENDAR_URLS: cal.url });
    stops.push(() => running.svc.close());
    const documents = ["first document", "second document", "third document"];
    const stamps = [];
    for (const content of documents)
      stamps.push(await stampHash(running.svc, ["bitcoin"], `${content} ${Math.random()}`));
    await running.tick();

    for (const { id, hex } of stamps) {
      const res = await fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.ots`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/vnd.opentimestamps.ots");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${id}.ots"`);
      const reading = readWithPython(new Uint8Array(await res.arrayBuffer()));
      const { batch } = await getJson<{ batch: { root: string } }>(running.svc, `/stamps/${id}/proof`);
      expect(reading.hash_op).toBe("sha256");
      expect(reading.file_digest).toBe(hex);
      // The library computed every message itself: the document's hash reaches the batch root.
      expect(reading.messages).toContain(batch.root);
      expect(reading.attestations).toEqual([{ pending: cal.url, commitment: cal.commitment(batch.root) }]);
    }
    const page = await (await fetch(`${running.svc.baseUrl}/verify/${stamps[0]!.id}`)).text();
    expect(page).toContain(`/stamps/${stamps[0]!.id}/timestamp.ots" download="${stamps[0]!.id}.ots"`);
    expect(page).toContain(`<code>ots verify -f your-document ${stamps[0]!.id}.ots</code>`);

    cal.state.mined = true;
    running.clock.advance(10 * 60_000);
    await running.tick();
    const { id } = stamps[1]!;
    const upgraded = await fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.ots`);
    const { batch } = await getJson<{ batch: { root: string } }>(running.svc, `/stamps/${id}/proof`);
    const commitment = cal.commitment(batch.root);
    const reading = readWithPython(new Uint8Array(await upgraded.arrayBuffer()));
    expect(reading.attestations).toEqual(
      expect.arrayContaining([
        { pending: cal.url, commitment },
        {
          bitcoin: STUB_BLOCK_HEIGHT,
          commitment: sha256hex(Buffer.from([0xbb]), Buffer.from(commitment, "hex")),
        },
      ]),
    );
    expect(reading.attestations).toHaveLength(2);
  });

  it("answers 404 ots_not_requested without the bitcoin anchor, 409 with Retry-After while pending", async () => {
    const cal = await calendar();
    const running = await startProofService({ OTS_CALENDAR_URLS: cal.url });
    stops.push(() => running.svc.close());
    const logOnly = await stampHash(running.svc, ["log"]);
    const waiting = await stampHash(running.svc, ["bitcoin"]);
    const get = (id: string) => fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.ots`);

    const notSealed = await get(waiting.id);
    expect(notSealed.status).toBe(409);
    expect(notSealed.headers.get("retry-after")).toBe("3600");
    expect(await notSealed.json()).toMatchObject({ code: "stamp_not_confirmed" });

    await running.tick();
    const notRequested = await get(logOnly.id);
    expect(notRequested.status).toBe(404);
    expect(await notRequested.json()).toMatchObject({ code: "ots_not_requested" });
    expect((await get("stp_00000000000000000000000000")).status).toBe(404);
  });

  it("answers 409 ots_pending with Retry-After while no calendar has answered for the root", async () => {
    const down = await stubServer(() => ({ status: 503 }));
    stops.push(down.close);
    const running = await startProofService({ OTS_CALENDAR_URLS: down.url });
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["bitcoin"]);
    await running.tick();
    const res = await fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.ots`);
    expect(res.status).toBe(409);
    expect(res.headers.get("retry-after")).toBe("3600");
    expect(await res.json()).toMatchObject({ code: "ots_pending" });
  });

  it("answers 409 ots_pending without Retry-After, naming the setting, where no calendar is configured", async () => {
    const running = await startProofService();
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["bitcoin"]);
    await running.tick();
    const res = await fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.ots`);
    expect(res.status).toBe(409);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(await res.json()).toMatchObject({
      code: "ots_pending",
      detail: expect.stringContaining("OTS_CALENDAR_URLS"),
    });
  });

  it("answers 409 ots_pending without Retry-After for an anchor settled before calendars' answers were kept", async () => {
    const cal = await calendar();
    const running = await startProofService({ OTS_CALENDAR_URLS: cal.url });
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["bitcoin"]);
    await running.tick();
    const { store } = running.svc.service.ctx;
    const { batch } = (await store.proofs.proofOf(id))!;
    const [record] = await store.anchors.forBatch(batch.id);
    // Receipts as the bitcoin anchor stored them before this export: commitments only.
    const legacy = JSON.stringify({ pending: [{ calendar: cal.url, commitment: "00".repeat(32) }] });
    await store.anchors.save(
      {
        ...record!,
        status: "confirmed",
        reference: "900004",
        confirmedAt: new Date(),
        evidence: Buffer.from(legacy),
      },
      new Date(),
    );
    const res = await fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.ots`);
    expect(res.status).toBe(409);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(await res.json()).toMatchObject({ code: "ots_pending" });
  });
});

describe("the proof bundle's opentimestamps part", () => {
  it("is fetched for a bitcoin anchor, read offline (calendar, attested height) and refused for another stamp", async () => {
    const cal = await calendar();
    const running = await startProofService({ OTS_CALENDAR_URLS: cal.url });
    stops.push(() => running.svc.close());
    const client = createClient({ baseUrl: running.svc.baseUrl, maxRetries: 0 });
    const mine = await stampHash(running.svc, ["bitcoin"]);
    const other = await stampHash(running.svc, ["bitcoin"]);
    await running.tick();
    const serviceUrl = running.svc.baseUrl;
    const pendingBundle = await fetchProofBundle(client, mine.id, { serviceUrl });
    const piece = async (bundle: typeof pendingBundle) =>
      (await verifyProofBundle(bundle)).pieces.find((p) => p.name === "opentimestamps");
    expect(await piece(pendingBundle)).toMatchObject({
      status: "unverified",
      detail: expect.stringContaining(`pending at ${cal.url}`),
    });

    cal.state.mined = true;
    running.clock.advance(10 * 60_000);
    await running.tick();
    const upgraded = await fetchProofBundle(client, mine.id, { serviceUrl, previous: pendingBundle });
    expect(upgraded.opentimestamps).not.toBe(pendingBundle.opentimestamps);
    expect((await piece(upgraded))!.detail).toContain(
      `Bitcoin block ${STUB_BLOCK_HEIGHT} attested by a calendar (unverified`,
    );

    const othersFile = (await fetchProofBundle(client, other.id, { serviceUrl })).opentimestamps;
    expect(await piece({ ...upgraded, opentimestamps: othersFile! })).toMatchObject({
      status: "invalid",
      detail: expect.stringContaining("is not the stamped hash"),
    });
  });

  it("is left out for a stamp without the bitcoin anchor", async () => {
    const running = await startProofService();
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["log"]);
    await running.tick();
    const client = createClient({ baseUrl: running.svc.baseUrl, maxRetries: 0 });
    const bundle = await fetchProofBundle(client, id, { serviceUrl: running.svc.baseUrl });
    expect(bundle).not.toHaveProperty("opentimestamps");
    expect((await verifyProofBundle(bundle)).pieces.map((p) => p.name)).not.toContain("opentimestamps");
  });
});
