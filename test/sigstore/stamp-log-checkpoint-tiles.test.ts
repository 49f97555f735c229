import { generateKeyPairSync } from "node:crypto";
import { afterEach, expect, it } from "vitest";
import { edgeTiles, tilePath } from "../../core/tile-path.js";
import { systemClock } from "../../server/clock.js";
import { unavailable } from "../../server/errors.js";
import { merkle } from "../../server/fingerprints/merkle.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";
import type { LogTileRepository } from "../../server/log/log-tile-repository.js";
import { LogTiles } from "../../server/log/log-tiles.js";
import { StampLog } from "../../server/sigstore/stamp-log.js";
import type { Store } from "../../server/store/store.js";
import { holdPoint } from "../helpers/hold-point.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";

let svc: RunningService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const body = (stampId: string) => new TextEncoder().encode(`{"kind":"hashedrekord","stamp":"${stampId}"}`);

/** What another instance does when it appends and is killed (or meets the outage) before signing. */
const appendUnsigned = (store: Store, ...stampIds: string[]) =>
  store.stampLog.append(
    stampIds.map((stampId) => ({ stampId, body: body(stampId), leafHash: merkle.leafHash(body(stampId)) })),
    new Date(),
  );

/**
 * A checkpoint is saved only after the tiles of its size are: the tiled log (and its mirrors)
 * never serves a checkpoint a reader cannot follow. Two signings of one instance overlap (two
 * first-time bundle requests for stamps another instance appended without signing, as after a
 * kill or a store outage between its append and its checkpoint): the second catches the tree up
 * while the first waits for the key ring, and the store fails the second's tile write. The
 * first must sign the size whose tiles it wrote, not the tree's size by then.
 */
it("signs the size whose tiles were written, when another signing grows the tree meanwhile and fails", async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const ids: string[] = [];
  for (const text of ["a\n", "b\n", "c\n"]) ids.push((await createStamp(svc, text)).stamp_id);
  const [a, b, c] = ids as [string, string, string];
  // One store, as two instances share one: `other` appends as the other instance does.
  const here = svc.service.ctx.store;
  const other = here;
  let failTileWrites = false;
  const tileRepo: LogTileRepository = Object.create(here.stampLogTiles, {
    put: {
      value: (...args: Parameters<LogTileRepository["put"]>) =>
        failTileWrites
          ? Promise.reject(unavailable("the store is unavailable", "store_unavailable", 2))
          : here.stampLogTiles.put(...args),
    },
  });
  // The ring's read of the signing states (a store query) is where the first signing waits.
  // The ring's read of the signing states (a store query) is where the first signing waits.
  const ringRead = holdPoint();
  const ring = {
    vouches: async () => {
      await ringRead.hold();
      return true;
    },
  };
  const signer = ed25519Signer(generateKeyPairSync("ed25519").privateKey);
  const log = new StampLog(
    here.stampLog,
    signer,
    "stampd.example/stamps",
    systemClock,
    new LogTiles(tileRepo, []),
    ring,
  );

  await appendUnsigned(other, a, b);
  const first = log.entry(a, () => body(a));
  await ringRead.reached;
  await appendUnsigned(other, c);
  failTileWrites = true;
  await expect(log.entry(b, () => body(b))).rejects.toMatchObject({ code: "unavailable" });
  failTileWrites = false;
  ringRead.release();
  const answered = await first;

  const latest = (await here.stampLog.latestCheckpoint())!;
  const edge = edgeTiles(latest.treeSize).map(tilePath);
  expect([...(await here.stampLogTiles.existing(edge))].sort()).toEqual([...edge].sort());
  expect(answered.checkpoint.treeSize).toBe(latest.treeSize);
});
