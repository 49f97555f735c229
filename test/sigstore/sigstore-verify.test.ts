import { createHash } from "node:crypto";
import { Code, type ConnectError } from "@connectrpc/connect";
import { sha3_256 } from "@noble/hashes/sha3.js";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { verifierKey } from "../../core/checkpoint.js";
import { StampdSocket } from "../../sdk/src/ws/client.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "../cli/run-stampd.js";
import { connectClient } from "../grpc/fixture.js";
import { type RunningService, startService } from "../helpers/service.js";
import { checkNote, TileReader } from "../log/tile-reader.js";
import { createStamp } from "../stamps/helpers.js";
import { wsUrl } from "../ws/ws-client.js";
import { type Bundle, getJson, publishedTrust, type SigstoreTrust, sigstoreVerify } from "./sigstore-js.js";

let svc: RunningService;
const get = (path: string) => fetch(`${svc.baseUrl}${path}`);
const json = <T>(path: string) => getJson<T>(svc.baseUrl, path);

/** The bundle with one byte of a base64 field (at `path`) changed. */
function tampered(bundle: Bundle, edit: (b: Bundle) => void): Bundle {
  const copy = structuredClone(bundle);
  edit(copy);
  return copy;
}
const flipBase64 = (text: string, at = 10): string => {
  const bytes = Buffer.from(text, "base64");
  bytes[at % bytes.length]! ^= 0x01;
  return bytes.toString("base64");
};

const content = "the lease, signed on the first of March\n";
let bundle: Bundle;
let stampId: string;
let trust: SigstoreTrust;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const stamp = await createStamp(svc, content);
  stampId = stamp.stamp_id;
  const pending = await get(`/stamps/${stamp.stamp_id}/sigstore`);
  expect(pending.status).toBe(409);
  expect(pending.headers.get("retry-after")).toBe("3600");
  expect(await pending.json()).toMatchObject({ code: "stamp_not_confirmed" });
  await svc.service.proofs.pipeline.tick();
  const res = await get(`/stamps/${stamp.stamp_id}/sigstore`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/vnd.dev.sigstore.bundle.v0.3+json");
  bundle = (await res.json()) as Bundle;
  trust = await publishedTrust(svc.baseUrl);
});
afterAll(async () => {
  await svc?.close();
});

describe("a REST stamp's Sigstore bundle, checked by sigstore-js's Verifier", () => {
  it("verifies for the stamped document", async () => {
    expect(bundle.verificationMaterial.tlogEntries[0]!.kindVersion).toEqual({
      kind: "hashedrekord",
      version: "0.0.2",
    });
    await expect(sigstoreVerify(bundle, content, trust)).resolves.toBeUndefined();
  });

  it("carries the upload's SHA-256 (SHA2_256, which every Sigstore client accepts), not its SHA3-256", () => {
    const digest = { algorithm: "SHA2_256", digest: createHash("sha256").update(content).digest("base64") };
    expect(bundle.messageSignature.messageDigest).toEqual(digest);
    const body = Buffer.from(bundle.verificationMaterial.tlogEntries[0]!.canonicalizedBody, "base64");
    expect(JSON.parse(body.toString()).spec.hashedRekordV002.data).toEqual(digest);
  });

  it("keeps SHA3_256 for an upload stored before migration 0016 (no SHA-256 beside it)", async () => {
    const older = "a deed uploaded before uploads were also hashed with SHA-256\n";
    const { stamp_id } = await createStamp(svc, older);
    const db = new Database(`${svc.dataDir}/stampd.db`);
    try {
      db.prepare("UPDATE stamps SET content_sha256 = NULL WHERE id = ?").run(stamp_id);
    } finally {
      db.close();
    }
    const olderBundle = await sealedBundle(stamp_id);
    expect(olderBundle.messageSignature.messageDigest).toEqual({
      algorithm: "SHA3_256",
      digest: Buffer.from(sha3_256(new TextEncoder().encode(older))).toString("base64"),
    });
    await expect(sigstoreVerify(olderBundle, older, trust)).resolves.toBeUndefined();
    await expect(sigstoreVerify(olderBundle, content, trust)).rejects.toThrow();
  });

  it("fails for another document", async () => {
    await expect(sigstoreVerify(bundle, `${content}!`, trust)).rejects.toThrow(
      /signature verification failed/,
    );
  });

  it.each<[string, (b: Bundle) => void, RegExp]>([
    [
      "the signature",
      (b) => {
        b.messageSignature.signature = flipBase64(b.messageSignature.signature, 20);
      },
      /TIMESTAMP_ERROR|timestamp could not be verified/,
    ],
    [
      "the inclusion proof",
      (b) => {
        const proof = b.verificationMaterial.tlogEntries[0]!.inclusionProof;
        proof.hashes = proof.hashes.length
          ? [flipBase64(proof.hashes[0]!), ...proof.hashes.slice(1)]
          : [flipBase64(proof.rootHash)];
      },
      /inclusion proof|root hash|hash count/,
    ],
    [
      "the checkpoint",
      (b) => {
        const proof = b.verificationMaterial.tlogEntries[0]!.inclusionProof;
        const [origin, size, hash, ...rest] = proof.checkpoint.envelope.split("\n");
        proof.checkpoint.envelope = [origin, size, flipBase64(hash!, 0), ...rest].join("\n");
      },
      /invalid checkpoint signature/,
    ],
    [
      "the timestamp",
      (b) => {
        const token = b.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0]!;
        const der = Buffer.from(token.signedTimestamp, "base64");
        der[der.length - 3]! ^= 0x01; // inside the ECDSA signature, the token's last member
        token.signedTimestamp = der.toString("base64");
      },
      /timestamp could not be verified/,
    ],
  ])("fails with one byte of %s changed", async (_name, edit, message) => {
    await expect(sigstoreVerify(tampered(bundle, edit), content, trust)).rejects.toThrow(message);
  });

  it("fails against a trusted root without the stamp log", async () => {
    await expect(
      sigstoreVerify(bundle, content, { ...trust, root: { ...trust.root, tlogs: [] } }),
    ).rejects.toThrow(/invalid checkpoint signature/);
  });
});

const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** The bundle of a stamp once its batch is sealed. */
async function sealedBundle(stampId: string): Promise<Bundle> {
  await svc.service.proofs.pipeline.tick();
  return json<Bundle>(`/stamps/${stampId}/sigstore`);
}

describe("stamps of SHA-256 hashes made over gRPC and WebSocket", () => {
  it("have bundles that verify for their documents, each a later entry of the same stamp log", async () => {
    const grpcDocument = "a deed hashed by a gRPC client\n";
    const { stamp } = await connectClient(svc).createStamp({ contentHash: sha256(grpcDocument) });
    const socket = new StampdSocket({ url: wsUrl(svc.baseUrl), WebSocket });
    const wsDocument = "a will hashed by a WebSocket client\n";
    const created = await socket.stamp({ contentHash: sha256(wsDocument) });
    socket.close();
    for (const [id, document] of [
      [stamp!.id, grpcDocument],
      [created.id, wsDocument],
    ] as const) {
      const hashBundle = await sealedBundle(id);
      expect(hashBundle.messageSignature.messageDigest.algorithm).toBe("SHA2_256");
      expect(Number(hashBundle.verificationMaterial.tlogEntries[0]!.logIndex)).toBeGreaterThan(0);
      await expect(sigstoreVerify(hashBundle, document, trust)).resolves.toBeUndefined();
      await expect(sigstoreVerify(hashBundle, content, trust)).rejects.toThrow();
    }
  });

  it("come over gRPC too: GetSigstoreBundle answers the bundle REST does, FAILED_PRECONDITION while pending", async () => {
    const client = connectClient(svc);
    const document = "a lease hashed and fetched over gRPC\n";
    const { stamp } = await client.createStamp({ contentHash: sha256(document) });
    const pending = await client.getSigstoreBundle({ stampId: stamp!.id }).catch((e: unknown) => e);
    expect(pending).toMatchObject({ code: Code.FailedPrecondition });
    expect((pending as ConnectError).metadata.get("retry-after")).toBe("3600");
    await svc.service.proofs.pipeline.tick();
    const { bundleJson } = await client.getSigstoreBundle({ stampId: stamp!.id });
    // The same signature and entry as REST's (each answer carries a token issued for it).
    const overGrpc = JSON.parse(bundleJson) as Bundle;
    const overRest = await json<Bundle>(`/stamps/${stamp!.id}/sigstore`);
    expect(overGrpc.messageSignature).toEqual(overRest.messageSignature);
    expect(overGrpc.verificationMaterial.tlogEntries[0]!.canonicalizedBody).toBe(
      overRest.verificationMaterial.tlogEntries[0]!.canonicalizedBody,
    );
    await expect(sigstoreVerify(JSON.parse(bundleJson), document, trust)).resolves.toBeUndefined();
  });

  it("answers a BLAKE3 stamp 422 and an unknown stamp 404", async () => {
    const { stamp } = await connectClient(svc).createStamp({ contentHash: `blake3:${"0".repeat(64)}` });
    await svc.service.proofs.pipeline.tick();
    const res = await get(`/stamps/${stamp!.id}/sigstore`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: "timestamp_algorithm_unsupported" });
    expect((await get("/stamps/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D/sigstore")).status).toBe(404);
  });
});

describe("the verification page", () => {
  it("links a sealed stamp's Sigstore bundle, and not a pending one's", async () => {
    const page = await (await get(`/verify/${stampId}`)).text();
    expect(page).toContain(`/stamps/${stampId}/sigstore" download="${stampId}.sigstore.json"`);
    expect(page).toContain('/sigstore/trusted_root.json"');
    const pending = await createStamp(svc, "not sealed yet\n");
    const pendingPage = await (await get(`/verify/${pending.stamp_id}`)).text();
    expect(pendingPage).not.toContain(`/stamps/${pending.stamp_id}/sigstore`);
  });
});

describe("the stamp log as C2SP tiles", () => {
  it("is read whole by the independent tile reader: its entries are the bundles' bodies, in index order", async () => {
    const note = await (await get("/log/stamps/tiles/checkpoint")).text();
    const logKey = trust.ring.find((k) => k.kind === "log" && k.state === "active")!;
    const origin = `${logKey.origin}/stamps`;
    const key = verifierKey(origin, Buffer.from(logKey.public_key.slice("ed25519:".length), "hex"));
    const checkpoint = checkNote(note, key);
    expect(checkpoint.origin).toBe(origin);
    const reader = new TileReader(`${svc.baseUrl}/log/stamps/tiles/`, null);
    await reader.audit(checkpoint);
    const entries = [...reader.entries.entries()].sort(([a], [b]) => a - b).map(([, entry]) => entry);
    expect(entries.length).toBe(checkpoint.size);
    expect(entries[0]!.toString("base64")).toBe(
      bundle.verificationMaterial.tlogEntries[0]!.canonicalizedBody,
    );
    for (const entry of entries) expect(JSON.parse(entry.toString()).kind).toBe("hashedrekord");
    // The transparency log's verifier key does not check the stamp log's checkpoints.
    expect(() =>
      checkNote(note, trust.ring.find((k) => k.kind === "log" && k.state === "active")!.verifier_key!),
    ).toThrow();
  });

  it(
    "is followed by stampd log monitor beside the transparency log, each checked with its own key",
    async () => {
      const run = await runStampd([
        "log",
        "monitor",
        `${svc.baseUrl}/log/tiles/`,
        `${svc.baseUrl}/log/stamps/tiles/`,
        "--count",
        "1",
        ...serverArgs(svc),
      ]);
      expect(run).toMatchObject({ code: 0 });
      expect(run.out).toContain(`${svc.baseUrl}/log/tiles/: checkpoint of`);
      expect(run.out).toMatch(/\/log\/stamps\/tiles\/: checkpoint of \d+ entries/);
    },
    SPAWNS_TIMEOUT,
  );
});
