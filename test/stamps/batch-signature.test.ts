// Stamps made by a batch call carry one service signature over the Merkle root of the batch
// (`signatures.service_batch`). Each verifies on its own, offline (SDK, `stampd verify`) and on the
// server (REST verify, gRPC Verify); tampering with one stamp fails that stamp only.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseContentHashText } from "../../core/content-hash.js";
import { verifyStamp } from "../../core/stamp.js";
import type { StampView } from "../../server/stamps/stamp-view.js";
import { connectClient, sha3, sha256 } from "../grpc/fixture.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity, type StampDocument, verifyOnServer } from "./helpers.js";
import { type Mutation, mutations, tampered } from "./tampering.js";

type Doc = Record<string, unknown> & StampDocument;

let svc: RunningService;
let serviceKey: string;
let batch: StampDocument[];
let single: StampDocument;
const hashes = Array.from({ length: 5 }, (_, i) => sha3(`batch item ${i}`));

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  serviceKey = svc.service.ctx.keys.signing.publicKey;
  const client = connectClient(svc);
  const made = await client.batchStamp({
    items: hashes.map((contentHash, i) => ({
      contentHash,
      description: `item ${i}`,
      metadata: { n: `${i}` },
    })),
  });
  batch = await Promise.all(made.stamps.map((s) => documentOf(s.id)));
  const one = await client.batchStamp({ items: [{ contentHash: sha256("alone") }] });
  single = await documentOf(one.stamps[0]!.id);
});
afterAll(() => svc.close());

async function documentOf(id: string): Promise<StampDocument> {
  return (await (await fetch(`${svc.baseUrl}/stamps/${id}`)).json()).stamp_json;
}

const serverVerify = (stampJson: unknown) => verifyOnServer(svc, stampJson);

/** Changes to the batch signature itself; each must fail the stamp it is made to. */
const batchMutations: Mutation[] = [
  [
    "service_batch.leaf_index",
    (d) => {
      d.signatures.service_batch!.leaf_index += 1;
    },
  ],
  [
    "service_batch.tree_size",
    (d) => {
      d.signatures.service_batch!.tree_size += 1;
    },
  ],
  [
    "service_batch.root",
    (d) => {
      d.signatures.service_batch!.root = "0".repeat(64);
    },
  ],
  [
    "service_batch.audit_path: one hash changed",
    (d) => {
      d.signatures.service_batch!.audit_path[0] = "1".repeat(64);
    },
  ],
  [
    "service_batch.audit_path: one hash removed",
    (d) => {
      d.signatures.service_batch!.audit_path.pop();
    },
  ],
  [
    "service_batch.signature",
    (d) => {
      d.signatures.service_batch!.signature = "2".repeat(128);
    },
  ],
  [
    "service_batch removed",
    (d) => {
      delete d.signatures.service_batch;
    },
  ],
];

describe("a batch-signed stamp", () => {
  it("carries one service signature for the whole batch and its own path to the root", () => {
    const signatures = batch.map((d) => d.signatures);
    expect(signatures.every((s) => s.service === null && s.author === null)).toBe(true);
    expect(new Set(signatures.map((s) => s.service_batch!.signature)).size).toBe(1);
    expect(new Set(signatures.map((s) => s.service_batch!.root)).size).toBe(1);
    expect(signatures.map((s) => [s.service_batch!.leaf_index, s.service_batch!.tree_size])).toEqual(
      hashes.map((_, i) => [i, hashes.length]),
    );
    expect(single.signatures.service_batch).toMatchObject({ leaf_index: 0, tree_size: 1, audit_path: [] });
  });

  it("verifies offline with the SDK, pinned to the service key", async () => {
    for (const document of [...batch, single]) {
      const result = await verifyStamp(document, { trustedServiceKeys: [serviceKey] });
      expect(result.details.failures).toEqual([]);
      expect(result).toMatchObject({ is_valid: true, signature_valid: true });
      expect(result.details.service_signature).toBe("valid");
    }
  });

  it("verifies with `stampd verify`, offline", () => {
    const dir = mkdtempSync(join(tmpdir(), "stampd-batch-"));
    try {
      const file = join(dir, "stamp.json");
      writeFileSync(file, JSON.stringify(batch[2]));
      const bin = new URL("../../bin/stampd.js", import.meta.url).pathname;
      const run = spawnSync(process.execPath, [bin, "verify", file, "--trust", serviceKey], {
        encoding: "utf8",
      });
      expect(run.stdout).toContain(`stamp ${batch[2]!.stamp_id}: VALID`);
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("verifies on the server: POST /verify, POST /stamps/{id}/verify and gRPC Verify", async () => {
    for (const document of [batch[0]!, single]) {
      expect(await serverVerify(document)).toMatchObject({ is_valid: true, signature_valid: true });
      const byId = await (
        await fetch(`${svc.baseUrl}/stamps/${document.stamp_id}/verify`, { method: "POST" })
      ).json();
      expect(byId.details.service_signature).toBe("valid");
      const grpc = await connectClient(svc).verify({
        stampId: document.stamp_id,
        contentHash: `${document.document.algorithm}:${document.document.hash}`,
      });
      expect(grpc).toMatchObject({ verified: true, message: "content hash matches" });
    }
  });

  // A gRPC batch stamp requests no anchors and has no author: removing those changes nothing.
  const unchanged = ["anchors: one removed", "anchors: reordered", "author_public_key: removed (null)"];
  const general = mutations.filter(([name]) => !unchanged.includes(name) && !name.endsWith("removed (null)"));
  it.each([...general, ...batchMutations])(
    "tampered (%s): that stamp fails offline and on the server, the others of its batch still verify",
    async (_name, mutate) => {
      const bad = tampered(batch[1]!, mutate);
      expect(bad).not.toEqual(batch[1]);
      const offline = await verifyStamp(bad, { trustedServiceKeys: [serviceKey] });
      expect(offline.is_valid).toBe(false);
      expect((await serverVerify(bad)).is_valid).toBe(false);
      for (const other of [batch[0]!, batch[2]!]) {
        expect((await verifyStamp(other, { trustedServiceKeys: [serviceKey] })).is_valid).toBe(true);
      }
    },
  );

  it("a batch made of another batch's paths does not verify: roots are signed, not paths", async () => {
    const swapped = structuredClone(batch[0]!) as Doc;
    swapped.signatures.service_batch = structuredClone(single.signatures.service_batch!);
    const result = await verifyStamp(swapped, { trustedServiceKeys: [serviceKey] });
    expect(result.details.service_signature).toBe("invalid");
    expect(result.details.failures[0]).toMatch(/audit path does not lead from this stamp/);
  });

  it("keeps identity (author) signatures one per stamp", async () => {
    const { key, accountId } = await issueKey(svc);
    const identityId = await createIdentity(svc, key);
    const made = (await svc.service.stamps.service.createManyFromHash([
      { contentHash: parseContentHashText(sha256("authored 1")), accountId, identityId },
      { contentHash: parseContentHashText(sha256("authored 2")), accountId },
    ])) as StampView[];
    const [authored, plain] = made.map((v) => v.stamp.document);
    expect(authored!.signatures.author).toMatch(/^[0-9a-f]{128}$/);
    expect(plain!.signatures.author).toBeNull();
    for (const document of [authored!, plain!]) {
      const result = await verifyStamp(document, { trustedServiceKeys: [serviceKey] });
      expect(result.details.failures).toEqual([]);
    }
    expect((await verifyStamp(authored!)).details.author_signature).toBe("valid");
  });
});
