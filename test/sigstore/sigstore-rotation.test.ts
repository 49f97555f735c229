import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../server/clock.js";
import { revokeKey, rotateKey } from "../../server/keys/key-rotation.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { type Bundle, getJson, publishedTrust, type RingKey, sigstoreVerify } from "./sigstore-js.js";

let svc: RunningService;
const json = <T>(path: string) => getJson<T>(svc.baseUrl, path);

/** sigstore-js's Verifier with the trust anchors the server publishes now. */
const verifyNow = async (bundle: unknown, document: string) =>
  sigstoreVerify(bundle, document, await publishedTrust(svc.baseUrl));

async function stampedBundle(document: string): Promise<{ id: string; bundle: Bundle }> {
  const stamp = await createStamp(svc, document);
  await svc.service.proofs.pipeline.tick();
  return { id: stamp.stamp_id, bundle: await json<Bundle>(`/stamps/${stamp.stamp_id}/sigstore`) };
}

const ports = () => {
  const { store, keys } = svc.service.ctx;
  return { repo: store.keyRing, atRest: keys.atRest, clock: systemClock, overlapMs: 0 };
};

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(async () => {
  await svc?.close();
});

describe("Sigstore bundles across key rotations", () => {
  it("made before a rotation of the service, log and TSA keys still verify after it, as do new ones", async () => {
    const before = await stampedBundle("signed before the rotations\n");
    for (const kind of ["service", "log", "tsa"] as const) await rotateKey(ports(), kind);
    await svc.service.ctx.keys.ring!.refresh();
    const after = await stampedBundle("signed after the rotations\n");
    expect(after.bundle.verificationMaterial.publicKey.hint).not.toBe(
      before.bundle.verificationMaterial.publicKey.hint,
    );
    await expect(verifyNow(before.bundle, "signed before the rotations\n")).resolves.toBeUndefined();
    await expect(verifyNow(after.bundle, "signed after the rotations\n")).resolves.toBeUndefined();
    // A bundle asked for again is the same entry, under the checkpoint the log has now.
    const again = await json<Bundle>(`/stamps/${before.id}/sigstore`);
    expect(again.verificationMaterial.tlogEntries[0]!.canonicalizedBody).toBe(
      before.bundle.verificationMaterial.tlogEntries[0]!.canonicalizedBody,
    );
    await expect(verifyNow(again, "signed before the rotations\n")).resolves.toBeUndefined();
  });

  it("whose checkpoint a revoked log key signed fails, and verifies once fetched again", async () => {
    const made = await stampedBundle("logged before the log key's revocation\n");
    const logKey = (await json<{ keys: RingKey[] }>("/keys")).keys.find(
      (k) => k.kind === "log" && k.state === "active",
    )!;
    await revokeKey(ports(), "log", logKey.key_id, { reason: "test" });
    await svc.service.ctx.keys.ring!.refresh();
    await expect(verifyNow(made.bundle, "logged before the log key's revocation\n")).rejects.toThrow(
      /invalid checkpoint signature/,
    );
    const again = await json<Bundle>(`/stamps/${made.id}/sigstore`);
    await expect(verifyNow(again, "logged before the log key's revocation\n")).resolves.toBeUndefined();
  });
});
