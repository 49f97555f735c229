import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStamp } from "../stamps/helpers.js";
import { stampHash, startProofService } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "stampd-tsr-"));
const file = (name: string, content: string | Uint8Array) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};

/** `openssl ts -verify -data <document> -in <reply> -CAfile <ca>`: its output, or its error output. */
function opensslVerify(document: string, reply: string, ca: string): string {
  try {
    return execFileSync("openssl", ["ts", "-verify", "-data", document, "-in", reply, "-CAfile", ca], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    return `${(err as { stdout: string }).stdout}${(err as { stderr: string }).stderr}`;
  }
}

let running: Awaited<ReturnType<typeof startProofService>>;
let caFile: string;
const timestamp = async (id: string) => {
  const res = await fetch(`${running.svc.baseUrl}/stamps/${id}/timestamp.tsr`);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: new Uint8Array(await res.arrayBuffer()),
  };
};

beforeAll(async () => {
  running = await startProofService();
  caFile = file("ca.pem", await (await fetch(`${running.svc.baseUrl}/tsa/ca.pem`)).text());
});
afterAll(async () => {
  await running?.svc.close();
  rmSync(dir, { recursive: true, force: true });
});

// openssl is there: the test run provides it or stops (test/environment/global-setup.ts).
describe("a stamp exported as an RFC 3161 time-stamp response", () => {
  it("verifies with openssl against the document for a SHA3-256 stamp made over REST", async () => {
    const content = "the contract, signed on the first of March\n";
    const stamp = await createStamp(running.svc, content);
    expect(stamp.hash_algorithm).toBe("sha3-256");
    await running.tick();
    const reply = await timestamp(stamp.stamp_id);
    expect(reply).toMatchObject({ status: 200, type: "application/timestamp-reply" });
    const tsr = file("rest.tsr", reply.body);
    expect(opensslVerify(file("rest.txt", content), tsr, caFile)).toContain("Verification: OK");
    expect(opensslVerify(file("other.txt", `${content}!`), tsr, caFile)).toContain("Verification: FAILED");
  });

  it("verifies for a SHA-256 stamp and carries the stamp's time", async () => {
    const content = "a document hashed by the client\n";
    const { id } = await stampHash(running.svc, [], content);
    await running.tick();
    const tsr = file("sha256.tsr", (await timestamp(id)).body);
    expect(opensslVerify(file("sha256.txt", content), tsr, caFile)).toContain("Verification: OK");
    const text = execFileSync("openssl", ["ts", "-reply", "-in", tsr, "-text"], { encoding: "utf8" });
    expect(text).toContain("Time stamp: Mar  1 12:00:00 2026 GMT");
    expect(text).toContain("Hash Algorithm: sha256");
  });

  it("answers 409 while the stamp is pending and 422 for a BLAKE3 stamp", async () => {
    const pending = await stampHash(running.svc);
    expect((await timestamp(pending.id)).status).toBe(409);
    const view = await running.svc.service.stamps.service.createFromHash({
      accountId: null,
      contentHash: { algorithm: "blake3", hex: bytesToHex(blake3(new TextEncoder().encode("x"))) },
    });
    await running.tick();
    expect((await timestamp(view.stamp.id)).status).toBe(422);
  });
});
