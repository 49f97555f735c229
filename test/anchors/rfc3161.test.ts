import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { requestTimestamp, TsaRejection } from "../../server/anchors/tsp-client.js";
import { getJson, stampHash, startProofService } from "../proofs/helpers.js";
import { OpensslTsa } from "./openssl-tsa.js";

type Schemas = components["schemas"];

// The real `openssl ts` is the TSA: the test run provides openssl or stops before any test
// (test/environment/global-setup.ts), so this never skips.
describe("the rfc3161 anchor against a real openssl TSA", () => {
  let tsa: OpensslTsa;
  let running: Awaited<ReturnType<typeof startProofService>>;

  beforeAll(async () => {
    tsa = await new OpensslTsa().start();
    running = await startProofService({ TSA_URL: tsa.url, TSA_CA_FILE: tsa.caFile });
  });
  afterAll(async () => {
    await running?.svc.close();
    await tsa?.stop();
  });

  it("time-stamps the batch root and anchors the stamp with the token's SHA-256", async () => {
    const { svc, events, tick } = running;
    const { id } = await stampHash(svc, ["log", "rfc3161"]);
    await tick();
    const stamp = await getJson<Schemas["StampResponse"]>(svc, `/stamps/${id}`);
    expect(stamp.status).toBe("anchored");
    const rfc3161 = stamp.anchors.find((a) => a.type === "rfc3161")!;
    expect(rfc3161).toMatchObject({
      status: "confirmed",
      reference: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(events.filter((e) => e.type === "stamp_anchored").map((e) => e.data)).toContainEqual({
      stampId: id,
      chain: "rfc3161",
      txHash: rfc3161.reference,
      timestamp: rfc3161.confirmed_at,
    });

    // The stamp proof serves the stored token, the TSA's over the batch root: openssl itself says
    // so of the served bytes. The stamp's other answers leave it out.
    expect(rfc3161.evidence).toBeUndefined();
    const proof = await getJson<Schemas["StampProof"]>(svc, `/stamps/${id}/proof`);
    const row = svc.service.ctx.store.anchors.forBatch(proof.batch.id);
    const stored = (await row).find((r) => r.type === "rfc3161")!.evidence!;
    const served = proof.anchors.find((a) => a.type === "rfc3161")!;
    expect(served).toMatchObject({ status: "confirmed", reference: rfc3161.reference });
    const token = Buffer.from(served.evidence!, "base64");
    expect(token.equals(Buffer.from(stored))).toBe(true);
    expect(createHash("sha256").update(token).digest("hex")).toBe(rfc3161.reference);
    expect(proof.anchors.find((a) => a.type === "log")!.evidence).toBeUndefined();
    const tokenFile = join(tsa.dir, "served.tst");
    writeFileSync(tokenFile, token);
    const out = execFileSync(
      "openssl",
      ["ts", "-verify", "-digest", proof.batch.root, "-in", tokenFile, "-token_in", "-CAfile", tsa.caFile],
      { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }, // openssl names its configuration on stderr
    );
    expect(out).toContain("Verification: OK");
  });

  it("refuses a token whose signature was altered in transit", async () => {
    const corrupting: typeof fetch = async (url, init) => {
      const reply = new Uint8Array(await (await fetch(url, init)).arrayBuffer());
      reply[reply.length - 1]! ^= 0x01;
      return new Response(reply);
    };
    await expect(
      requestTimestamp(tsa.url, new Uint8Array(32).fill(9), { fetch: corrupting }),
    ).rejects.toThrow();
    await expect(requestTimestamp(tsa.url, new Uint8Array(32).fill(9))).resolves.toMatchObject({
      genTime: expect.any(Date),
    });
  });

  it("checks the TSA's certificate against TSA_CA_FILE when it is set", async () => {
    const trusted = [new X509Certificate(readFileSync(tsa.caFile))];
    const digest = new Uint8Array(32).fill(4);
    await expect(requestTimestamp(tsa.url, digest, { trustedCas: trusted })).resolves.toBeDefined();
    // Another CA (the service's own TSA's) did not issue the openssl TSA's certificate.
    const stranger = [new X509Certificate(await (await fetch(`${running.svc.baseUrl}/tsa/ca.pem`)).text())];
    await expect(requestTimestamp(tsa.url, digest, { trustedCas: stranger })).rejects.toThrow(TsaRejection);
  });

  it("keeps the anchor pending while the TSA is down, and confirms once it is back", async () => {
    const { svc, clock, tick } = running;
    tsa.unavailable = true;
    const { id } = await stampHash(svc, ["rfc3161"]);
    await tick();
    let stamp = await getJson<Schemas["StampResponse"]>(svc, `/stamps/${id}`);
    expect(stamp).toMatchObject({ status: "confirmed", anchors: [{ type: "rfc3161", status: "pending" }] });
    tsa.unavailable = false;
    await tick();
    // Not yet due again: the retry waits 5 s.
    expect((await getJson<Schemas["StampResponse"]>(svc, `/stamps/${id}`)).status).toBe("confirmed");
    clock.advance(5000);
    await tick();
    stamp = await getJson<Schemas["StampResponse"]>(svc, `/stamps/${id}`);
    expect(stamp).toMatchObject({ status: "anchored", anchors: [{ type: "rfc3161", status: "confirmed" }] });
  });
});
