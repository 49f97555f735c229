import { afterEach, describe, expect, it } from "vitest";
import { Hosts } from "../helpers/hosts.js";
import type { RunningService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { type Bundle, getJson, publishedTrust, sigstoreVerify } from "./sigstore-js.js";

const hosts = new Hosts();
afterEach(() => hosts.close());

const bundleFrom = (svc: RunningService, id: string) =>
  getJson<Bundle>(svc.baseUrl, `/stamps/${id}/sigstore`);
const entryOf = (bundle: Bundle) => bundle.verificationMaterial.tlogEntries[0]!;

// Starts of the real server take 10-30 s on a busy 2-core machine.
describe("Sigstore bundles from two instances on PostgreSQL", { timeout: 120_000 }, () => {
  it("verify whichever instance answers, one stamp log entry per stamp", async () => {
    const { url } = await hosts.schema();
    const env = { DATABASE_URL: url, DATA_DIR: hosts.folder() };
    const a = await hosts.instance(env);
    const b = await hosts.instance(env);
    const documents = [
      "first, bundled by B then A\n",
      "second, asked of both at once\n",
      "third, asked of one instance three times at once\n",
    ] as const;
    const stamps = [];
    for (const document of documents) stamps.push(await createStamp(a, document));
    await a.service.proofs.pipeline.tick();

    const [first, second, third] = stamps.map((s) => s.stamp_id) as [string, string, string];
    const fromB = await bundleFrom(b, first);
    const fromA = await bundleFrom(a, first);
    const [raceA, raceB] = await Promise.all([bundleFrom(a, second), bundleFrom(b, second)]);
    // Asked three times at once of one instance: one entry.
    const thrice = await Promise.all([bundleFrom(a, third), bundleFrom(a, third), bundleFrom(a, third)]);
    expect(new Set(thrice.map((t) => entryOf(t).logIndex)).size).toBe(1);

    // The entry is appended once: every answer carries the same index and body.
    expect(entryOf(fromA).logIndex).toBe(entryOf(fromB).logIndex);
    expect(entryOf(fromA).canonicalizedBody).toBe(entryOf(fromB).canonicalizedBody);
    expect(entryOf(raceA).logIndex).toBe(entryOf(raceB).logIndex);
    expect(entryOf(raceA).logIndex).not.toBe(entryOf(fromA).logIndex);
    // Each instance's trust anchors verify every bundle, whichever instance made it.
    const [trustA, trustB] = [await publishedTrust(a.baseUrl), await publishedTrust(b.baseUrl)];
    for (const [bundle, document, trust] of [
      [fromA, documents[0], trustB],
      [fromB, documents[0], trustA],
      [raceA, documents[1], trustB],
      [raceB, documents[1], trustA],
    ] as const) {
      await expect(sigstoreVerify(bundle, document, trust)).resolves.toBeUndefined();
    }
    await expect(sigstoreVerify(fromA, documents[1], trustA)).rejects.toThrow(
      /signature verification failed/,
    );
  });
});
