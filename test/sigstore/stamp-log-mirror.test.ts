import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../../core/checkpoint.js";
import { runStampd, SPAWNS_TIMEOUT } from "../cli/run-stampd.js";
import { connectClient, sha256 } from "../grpc/fixture.js";
import { S3Bucket } from "../helpers/s3-bucket.js";
import { type RunningService, startService } from "../helpers/service.js";
import { checkNote, pathOf, type ReadCheckpoint, TileReader } from "../log/tile-reader.js";
import { type Bundle, getJson, publishedTrust } from "./sigstore-js.js";

// The stamp log grows when a stamp's bundle is first asked for (docs/sigstore.md); its tiles go
// to the same mirrors as the transparency log's, in their `stamps/` folder (docs/log-tiles.md).
const PREFIX = "stampd/log/";
// Sizes the stamp log grows through: one entry, a partial tile, then past a full one (whose
// partial versions the mirrors delete).
const SIZES = [1, 255, 300];

const dataDir = mkdtempSync(join(tmpdir(), "stampd-stamp-log-mirror-"));
const folder = join(dataDir, "mirror");
const bucket = new S3Bucket(join(dataDir, "s3rver"), "stampd-log");
let env: Record<string, string>;
let svc: RunningService;
let site: Server;
let siteUrl: string;
/** The transparency log's verifier key, and the stamp log's (the same key under its origin). */
let logKey: string;
let stampLogKey: string;
const stampIds: string[] = [];
/** Each logged stamp's bundle entry body (base64), by its index in the stamp log. */
const bodies = new Map<number, string>();

const text = async (url: string) => (await fetch(url)).text();
const serviceTiles = () => `${svc.baseUrl}/log/stamps/tiles/`;

beforeAll(async () => {
  await bucket.start();
  const secretFile = join(dataDir, "s3-secret");
  writeFileSync(secretFile, "not-the-real-secret\n", { mode: 0o600 });
  env = {
    DATA_DIR: dataDir,
    RATE_LIMIT_ENABLED: "false",
    LOG_TILES_DIR: folder,
    ...bucket.mirrorEnv(PREFIX, secretFile),
  };
  svc = await startService(env);
  site = await serveAsTheService(folder);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const { ring } = await publishedTrust(svc.baseUrl);
  const active = ring.find((k) => k.kind === "log" && k.state === "active")!;
  logKey = active.verifier_key!;
  stampLogKey = verifierKey(
    `${active.origin}/stamps`,
    Buffer.from(active.public_key.slice("ed25519:".length), "hex"),
  );
  const items = Array.from({ length: SIZES.at(-1)! }, (_, i) => ({ contentHash: sha256(`deed ${i}\n`) }));
  const { stamps } = await connectClient(svc).batchStamp({ items });
  stampIds.push(...stamps.map((s) => s.id));
  await svc.service.proofs.pipeline.tick();
}, 60_000);
afterAll(async () => {
  await svc?.close();
  site?.close();
  await bucket.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Logs the stamps up to `size` in the stamp log (their bundles asked for, a few at once), then mirrors. */
async function grow(size: number): Promise<ReadCheckpoint> {
  const from = bodies.size;
  for (let at = from; at < size; at += 25) {
    const ids = stampIds.slice(at, Math.min(at + 25, size));
    const bundles = await Promise.all(
      ids.map((id) => getJson<Bundle>(svc.baseUrl, `/stamps/${id}/sigstore`)),
    );
    for (const { verificationMaterial } of bundles) {
      const entry = verificationMaterial.tlogEntries[0]!;
      bodies.set(Number(entry.logIndex), entry.canonicalizedBody);
    }
  }
  await svc.service.sigstore.mirroring.tick();
  return checkNote(await text(`${serviceTiles()}checkpoint`), stampLogKey);
}

/** Reads the stamp log at `prefix` whole with the independent reader; its entries are the bundles' bodies. */
async function auditAt(prefix: string, checkpoint: ReadCheckpoint): Promise<void> {
  const reader = new TileReader(prefix, null);
  await reader.audit(checkpoint);
  const entries = [...reader.entries.entries()].sort(([a], [b]) => a - b);
  expect(entries.map(([index]) => index)).toEqual([...bodies.keys()].sort((a, b) => a - b));
  for (const [index, entry] of entries)
    expect(entry.toString("base64"), `entry ${index}`).toBe(bodies.get(index));
}

describe("the stamp log in the tile mirrors", () => {
  it("is copied to the folder as the service serves it, file for file, and read from it by the tile reader", async () => {
    for (const size of SIZES) {
      const checkpoint = await grow(size);
      expect(checkpoint.size).toBe(size);
      expect(readFileSync(join(folder, "stamps", "checkpoint"), "utf8")).toBe(
        await text(`${serviceTiles()}checkpoint`),
      );
      // Each file is the one the service serves at that path. (The store also keeps the partial
      // tiles of checkpoints signed between two passes, which no mirrored checkpoint needs.)
      const stored = new Set(await svc.service.ctx.store.stampLogTiles.paths());
      for (const path of filesUnder(join(folder, "stamps"))) {
        if (path !== "checkpoint") expect(stored.has(path), path).toBe(true);
        const served = Buffer.from(await (await fetch(`${serviceTiles()}${path}`)).arrayBuffer());
        expect(readFileSync(join(folder, "stamps", path)), path).toEqual(served);
      }
      await auditAt(`${siteUrl}/log/stamps/tiles/`, checkpoint);
    }
    expect(readdirSync(join(folder, "stamps", "tile", "0")).sort()).toEqual(["000", "001.p"]);
    // The transparency log keeps the folder's root, untouched by the stamp log's.
    expect(readFileSync(join(folder, "checkpoint"), "utf8")).toBe(
      await text(`${svc.baseUrl}/log/tiles/checkpoint`),
    );
  }, 120_000);

  it("is copied to the bucket under <prefix>stamps/, each object with the API's bytes and headers", async () => {
    const checkpoint = checkNote(await text(`${serviceTiles()}checkpoint`), stampLogKey);
    expect(checkpoint.size).toBe(SIZES.at(-1));
    for (const path of [
      "checkpoint",
      pathOf(0, 0, 256),
      pathOf(0, 1, 44),
      pathOf("entries", 1, 44),
      pathOf(1, 0, 1),
    ]) {
      const [fromApi, fromBucket] = await Promise.all([
        fetch(`${serviceTiles()}${path}`),
        fetch(bucket.url(`${PREFIX}stamps/${path}`)),
      ]);
      expect(fromBucket.status, path).toBe(200);
      expect(fromBucket.headers.get("content-type"), path).toBe(fromApi.headers.get("content-type"));
      expect(fromBucket.headers.get("cache-control"), path).toBe(fromApi.headers.get("cache-control"));
      expect(Buffer.from(await fromBucket.arrayBuffer()), path).toEqual(
        Buffer.from(await fromApi.arrayBuffer()),
      );
    }
    expect((await fetch(bucket.url(`${PREFIX}stamps/${pathOf(0, 0, 255)}`))).status).toBe(404);
    await auditAt(bucket.url(`${PREFIX}stamps/`), checkpoint);
    expect(await text(bucket.url(`${PREFIX}checkpoint`))).toBe(
      await text(`${svc.baseUrl}/log/tiles/checkpoint`),
    );
  });

  it(
    "is followed from each mirror by stampd log monitor beside the transparency log",
    async () => {
      // One run per mirror: a checkpoint already seen from another view is compared, not read
      // from that view's tiles again, so each run reads both logs' tiles from its mirror alone.
      // The pinned log key is all it needs (no --url): the service could be gone.
      const mirrors = [
        [`${siteUrl}/log/tiles/`, `${siteUrl}/log/stamps/tiles/`],
        [bucket.url(PREFIX), bucket.url(`${PREFIX}stamps/`)],
      ];
      const runs = await Promise.all(
        mirrors.map((views) => runStampd(["log", "monitor", ...views, "--count", "1", "--log-key", logKey])),
      );
      for (const [i, [logTiles, stampLogTiles]] of mirrors.entries()) {
        expect(runs[i]).toMatchObject({ code: 0 });
        expect(runs[i]!.out).toContain(`${logTiles}: checkpoint of 1 entries`);
        expect(runs[i]!.out).toContain(`${stampLogTiles}: checkpoint of ${SIZES.at(-1)} entries`);
      }
    },
    SPAWNS_TIMEOUT,
  );

  it("is re-synced at start: a lost file is put back before the service answers", async () => {
    await svc.close();
    const lost = pathOf("entries", 0, 256);
    rmSync(join(folder, "stamps", lost));
    expect((await fetch(bucket.url(`${PREFIX}stamps/${lost}`), { method: "DELETE" })).status).toBe(204);
    svc = await startService(env);
    const checkpoint = checkNote(await text(`${serviceTiles()}checkpoint`), stampLogKey);
    await auditAt(`${siteUrl}/log/stamps/tiles/`, checkpoint);
    await auditAt(bucket.url(`${PREFIX}stamps/`), checkpoint);
  }, 60_000);
});

/** The files below `dir` (paths relative to it), without the mirror's `.tmp/`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((path) => !path.startsWith(".tmp/"));
}

/**
 * A plain static file server over a mirror folder at the service's URLs, as docs/log-tiles.md
 * has an operator map them: `/log/tiles/` is the folder, `/log/stamps/tiles/` its `stamps/`.
 */
async function serveAsTheService(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url!, "http://x").pathname));
    const file = path.startsWith("/log/stamps/tiles/")
      ? join(dir, "stamps", path.slice("/log/stamps/tiles/".length))
      : path.startsWith("/log/tiles/")
        ? join(dir, path.slice("/log/tiles/".length))
        : undefined;
    if (!file) return void res.writeHead(404).end();
    readFile(file).then(
      (data) => res.writeHead(200, { "content-type": "application/octet-stream" }).end(data),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
