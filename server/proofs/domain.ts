import { createAnchorAdapters } from "../anchors/adapters.js";
import { AnchorWorker } from "../anchors/anchor-worker.js";
import { anchorAvailability } from "../anchors/availability.js";
import { logOrigin } from "../config.js";
import type { AppContext } from "../context.js";
import { LogTiles } from "../log/log-tiles.js";
import { tileMirrors } from "../log/tile-mirrors.js";
import { TransparencyLog } from "../log/transparency-log.js";
import { observeAnchorOutcomes, observeSealing } from "../metrics/proof-observers.js";
import { Batcher } from "./batcher.js";
import { OtsExport } from "./ots-export.js";
import { ProofPipeline } from "./pipeline.js";
import { ProofService } from "./proof-service.js";
import { StampEvidenceSource } from "./stamp-evidence.js";
import { TimestampAuthority } from "./tsa/authority.js";

export interface ProofDomain {
  log: TransparencyLog;
  pipeline: ProofPipeline;
  /** Proof bundles and RFC 3161 exports of stamps. */
  service: ProofService;
  /** What a stamp's batch, log entry and anchors say of it; the stamp domain reads it too. */
  evidence: StampEvidenceSource;
  /** The service's own time-stamp authority: its CA bundle for `GET /tsa/ca.pem`. */
  tsa: TimestampAuthority;
  /** The `bitcoin` anchor as OpenTimestamps proof files. */
  ots: OtsExport;
}

export type ProofPorts = Pick<
  AppContext,
  "config" | "store" | "keys" | "clock" | "events" | "logger" | "metrics"
>;

/** Assembles batching, the transparency log, anchoring and the service's TSA. */
export async function createProofDomain(ports: ProofPorts): Promise<ProofDomain> {
  const { config, store, keys, clock, events, logger, metrics } = ports;
  const mirrors = tileMirrors(config, store.logTiles, clock, logger.child({ component: "log-tiles" }));
  const tiles = new LogTiles(store.logTiles, mirrors);
  const log = new TransparencyLog(
    store.log,
    keys.log ?? keys.signing,
    logOrigin(config),
    clock,
    tiles,
    keys.ring,
  );
  const batcher = new Batcher({
    proofs: observeSealing(store.proofs, metrics),
    signer: keys.signing,
    ...(keys.ring && { ring: keys.ring }),
    clock,
    events,
    maxStamps: config.BATCH_MAX,
  });
  const anchors = new AnchorWorker({
    anchors: observeAnchorOutcomes(store.anchors, metrics),
    proofs: store.proofs,
    adapters: createAnchorAdapters(config, log, clock),
    clock,
    events,
    logger: logger.child({ component: "anchors" }),
  });
  const pipeline = new ProofPipeline({
    batcher,
    log,
    anchors,
    events,
    logger: logger.child({ component: "proof-pipeline" }),
    intervalMs: config.BATCH_INTERVAL_MS,
    maxStamps: config.BATCH_MAX,
  });
  if (!keys.ring)
    throw new Error("the TSA signs with the key ring's TSA keys: open the deployment's keys first");
  const tsa = new TimestampAuthority(keys.ring);
  const evidence = new StampEvidenceSource(
    store.proofs,
    store.anchors,
    store.log,
    anchorAvailability(config),
  );
  const service = new ProofService({ stamps: store.stamps, proofs: store.proofs, evidence, log, tsa });
  const ots = new OtsExport({
    stamps: store.stamps,
    proofs: store.proofs,
    anchors: store.anchors,
    pendingRetryAfterSeconds: Math.ceil(config.BATCH_INTERVAL_MS / 1000),
    unavailable: anchorAvailability(config).bitcoin,
  });
  return { log, pipeline, service, evidence, tsa, ots };
}
