import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { attestations } from "../../core/ots.js";
import type { components } from "../../gen/openapi/types.js";
import { getJson, stampHash, startProofService } from "../proofs/helpers.js";
import { bitcoin, pending, varbytes } from "./ots-bytes.js";
import { stubServer } from "./stub-server.js";

type StampResponse = components["schemas"]["StampResponse"];

const sha256 = (...parts: Uint8Array[]) =>
  new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe("OpenTimestamps timestamps", () => {
  it("finds pending and Bitcoin attestations with the commitment each is about, across forks", () => {
    const message = new Uint8Array(32).fill(5);
    const nonce = new Uint8Array(16).fill(9);
    // append(nonce), sha256, then fork: a pending attestation | prepend(0xaa), sha256, bitcoin 871234
    const bytes = Uint8Array.from([
      0xf0,
      ...varbytes(nonce),
      0x08,
      0xff,
      ...pending("https://calendar.example"),
      0xf1,
      ...varbytes([0xaa]),
      0x08,
      ...bitcoin(871234),
    ]);
    const committed = sha256(message, nonce);
    expect(attestations(bytes, message)).toEqual([
      { kind: "pending", uri: "https://calendar.example", commitment: committed },
      { kind: "bitcoin", height: 871234, commitment: sha256(Uint8Array.of(0xaa), committed) },
    ]);
  });

  it("refuses unknown operations and truncated input", () => {
    expect(() => attestations(Uint8Array.of(0x42), new Uint8Array(32))).toThrow(/unknown operation/);
    expect(() => attestations(Uint8Array.of(0xf0, 0x05, 1, 2), new Uint8Array(32))).toThrow(/ends early/);
  });
});

describe("the bitcoin anchor against a stand-in calendar", () => {
  it("submits the root, stays pending until the calendar has a Bitcoin attestation, then anchors", async () => {
    let mined = false;
    const nonce = new Uint8Array(16).fill(3);
    const calendar = await stubServer(({ method, path }) => {
      if (method === "POST" && path === "/digest")
        return {
          status: 200,
          body: Uint8Array.from([0xf0, ...varbytes(nonce), 0x08, ...pending(calendar.url)]),
        };
      if (path.startsWith("/timestamp/") && mined)
        return { status: 200, body: Uint8Array.from([0x08, ...bitcoin(900001)]) };
      return { status: 404, body: "Pending confirmation in Bitcoin blockchain", type: "text/plain" };
    });
    stops.push(calendar.close);
    const running = await startProofService({ OTS_CALENDAR_URLS: calendar.url });
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["bitcoin"]);
    await running.tick();
    let stamp = await getJson<StampResponse>(running.svc, `/stamps/${id}`);
    expect(stamp).toMatchObject({ status: "confirmed", anchors: [{ type: "bitcoin", status: "pending" }] });
    const proof = await getJson<{ batch: { root: string } }>(running.svc, `/stamps/${id}/proof`);
    expect(calendar.requests[0]!.body.toString("hex")).toBe(proof.batch.root);

    mined = true;
    running.clock.advance(10 * 60_000);
    await running.tick();
    stamp = await getJson<StampResponse>(running.svc, `/stamps/${id}`);
    expect(stamp).toMatchObject({
      status: "anchored",
      anchors: [{ type: "bitcoin", status: "confirmed", reference: "900001" }],
    });
    const commitment = Buffer.from(sha256(Buffer.from(proof.batch.root, "hex"), nonce)).toString("hex");
    expect(calendar.requests.at(-1)!.path).toBe(`/timestamp/${commitment}`);
  });
});

describe("the bitcoin anchor contacts configured calendars only", () => {
  it("asks the calendar that issued a pending attestation naming another host, never that host", async () => {
    const elsewhere = await stubServer(() => ({ status: 500 }));
    stops.push(elsewhere.close);
    const nonce = new Uint8Array(16).fill(7);
    const calendar = await stubServer(({ method, path }) => {
      if (method === "POST" && path === "/digest")
        return {
          status: 200,
          body: Uint8Array.from([0xf0, ...varbytes(nonce), 0x08, ...pending(elsewhere.url)]),
        };
      if (path.startsWith("/timestamp/"))
        return { status: 200, body: Uint8Array.from([0x08, ...bitcoin(900002)]) };
      return { status: 404 };
    });
    stops.push(calendar.close);
    const running = await startProofService({ OTS_CALENDAR_URLS: calendar.url });
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["bitcoin"]);
    await running.tick();
    running.clock.advance(10 * 60_000);
    await running.tick();
    const stamp = await getJson<StampResponse>(running.svc, `/stamps/${id}`);
    expect(stamp).toMatchObject({ anchors: [{ type: "bitcoin", status: "confirmed", reference: "900002" }] });
    expect(elsewhere.requests).toEqual([]);
    expect(calendar.requests.map((r) => r.path.split("/")[1])).toEqual(["digest", "timestamp"]);
  });
});

describe("the ethereum anchor against a stand-in JSON-RPC node", () => {
  it("sends the root in a transaction, then confirms with its hash and the block's time", async () => {
    const txHash = `0x${"ab".repeat(32)}`;
    let mined = false;
    const calls: { method: string; params: unknown[] }[] = [];
    const node = await stubServer(({ body }) => {
      const call = JSON.parse(body.toString()) as { id: number; method: string; params: unknown[] };
      calls.push(call);
      const results: Record<string, unknown> = {
        eth_sendTransaction: txHash,
        eth_getTransactionReceipt: mined ? { status: "0x1", blockNumber: "0x10" } : null,
        eth_getBlockByNumber: { timestamp: "0x69a42b10" },
      };
      return {
        status: 200,
        type: "application/json",
        body: JSON.stringify({ jsonrpc: "2.0", id: call.id, result: results[call.method] }),
      };
    });
    stops.push(node.close);
    const from = `0x${"12".repeat(20)}`;
    const running = await startProofService({ ETHEREUM_RPC_URL: node.url, ETHEREUM_FROM: from });
    stops.push(() => running.svc.close());
    const { id } = await stampHash(running.svc, ["ethereum"]);
    await running.tick();
    const proof = await getJson<{ batch: { root: string } }>(running.svc, `/stamps/${id}/proof`);
    expect(calls[0]).toMatchObject({
      method: "eth_sendTransaction",
      params: [{ from, to: from, data: `0x${proof.batch.root}` }],
    });
    expect((await getJson<StampResponse>(running.svc, `/stamps/${id}`)).status).toBe("confirmed");

    mined = true;
    running.clock.advance(15_000);
    await running.tick();
    const stamp = await getJson<StampResponse>(running.svc, `/stamps/${id}`);
    expect(stamp).toMatchObject({
      status: "anchored",
      anchors: [
        {
          type: "ethereum",
          status: "confirmed",
          reference: txHash,
          confirmed_at: new Date(0x69a42b10 * 1000).toISOString(),
        },
      ],
    });
    expect(calls.filter((c) => c.method === "eth_sendTransaction")).toHaveLength(1);
  });
});
