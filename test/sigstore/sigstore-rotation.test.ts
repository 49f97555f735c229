import { createPublicKey } from "node:crypto";
import { bundleFromJSON } from "@sigstore/bundle";
import { TrustedRoot } from "@sigstore/protobuf-specs";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { systemClock } from "../../server/clock.js";
import { revokeKey, rotateKey } from "../../server/keys/key-rotation.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";

type Bundle = components["schemas"]["SigstoreBundle"];
type TrustedRootJson = components["schemas"]["SigstoreTrustedRoot"];
type RingKey = components["schemas"]["RingKey"];

/** A key's period starts to the second below: RFC 3161 times as Sigstore reads them are whole seconds. */
const secondBelow = (iso: string) => new Date(Math.floor(Date.parse(iso) / 1000) * 1000);

let svc: RunningService;
const json = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${svc.baseUrl}${path}`);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
};

/** sigstore-js's Verifier with the trust anchors the server publishes now (see sigstore-verify.test.ts). */
async function verifyNow(bundle: unknown, document: string): Promise<void> {
  const root = await json<TrustedRootJson>("/sigstore/trusted_root.json");
  const ring = (await json<{ keys: RingKey[] }>("/keys")).keys;
  const keys = Object.fromEntries(
    ring
      .filter((k) => k.kind === "sigstore")
      .map((k) => [
        k.key_id,
        {
          rawBytes: createPublicKey(k.public_key_pem!).export({ type: "spki", format: "der" }),
          validFor: { start: secondBelow(k.not_before), ...(k.not_after && { end: new Date(k.not_after) }) },
        },
      ]),
  );
  const verifier = new Verifier(toTrustMaterial(TrustedRoot.fromJSON(root), keys as never), {
    tlogThreshold: 1,
    timestampThreshold: 1,
    ctlogThreshold: 0,
  });
  verifier.verify(toSignedEntity(bundleFromJSON(bundle), Buffer.from(document)));
}

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
