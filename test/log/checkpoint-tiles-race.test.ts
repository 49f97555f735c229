import { afterEach, expect, it } from "vitest";
import { edgeTiles, tilePath } from "../../core/tile-path.js";
import { systemClock } from "../../server/clock.js";
import type { LogTileRepository } from "../../server/log/log-tile-repository.js";
import { LogTiles } from "../../server/log/log-tiles.js";
import { rootLeafHash, TransparencyLog } from "../../server/log/transparency-log.js";
import { holdPoint } from "../helpers/hold-point.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";

let svc: RunningService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

/**
 * The transparency log saves a checkpoint only after the tiles of its size: an instance whose
 * sequence() is writing tiles while a proof request catches its tree up (to the checkpoint of
 * another instance, and past it: a batch that instance appended and did not sign, killed or cut
 * off from the store in between) must sign the size whose tiles it wrote, not the tree's size by
 * then, which no instance wrote tiles for.
 */
it("sequence() signs the size whose tiles it wrote when a proof request grows the tree meanwhile", async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const { store, keys } = svc.service.ctx;
  await createStamp(svc, "logged and signed by the service\n");
  await svc.service.proofs.pipeline.tick();
  // The batcher alone, as a pass of another instance seals batches before it sequences them.
  const { batcher } = (
    svc.service.proofs.pipeline as unknown as { parts: { batcher: { sealPending(): Promise<unknown> } } }
  ).parts;
  let n = 0;
  const sealOne = async () => {
    await createStamp(svc!, `a document of batch ${n++}\n`);
    await batcher.sealPending();
  };

  const firstPut = holdPoint();
  // The store is slow to take this instance's first tile write.
  const slowTiles: LogTileRepository = Object.create(store.logTiles, {
    put: {
      value: async (...args: Parameters<LogTileRepository["put"]>) => {
        await firstPut.hold();
        return store.logTiles.put(...args);
      },
    },
  });
  const signer = keys.log ?? keys.signing;
  const { origin } = svc.service.proofs.log;
  const here = new TransparencyLog(store.log, signer, origin, systemClock, new LogTiles(slowTiles, []));
  const other = new TransparencyLog(store.log, signer, origin, systemClock, new LogTiles(store.logTiles, []));

  await sealOne();
  const sequenced = here.sequence();
  await firstPut.reached;
  await sealOne();
  const signedElsewhere = await other.sequence();
  await sealOne();
  await store.log.appendSealed(new Date(), rootLeafHash);
  await here.inclusion(0, signedElsewhere.treeSize);
  firstPut.release();
  await sequenced;

  const latest = (await store.log.latestCheckpoint())!;
  const edge = edgeTiles(latest.treeSize).map(tilePath);
  expect([...(await store.logTiles.existing(edge))].sort()).toEqual([...edge].sort());
});
