import type { Clock } from "../clock.js";
import { type Config, logOrigin } from "../config.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import { joinKeyRing, joinTsaCertificate } from "./join-key-ring.js";
import { DeploymentKeyRing } from "./key-ring.js";
import { loadAtRestKey, loadSigningKey, type ServiceKeys } from "./service-keys.js";
import { loadTsaFile } from "./tsa-keys.js";

/**
 * The service's keys as the deployment holds them: the configured secrets and the TSA of
 * `DATA_DIR/keys/tsa.pem` checked against the store's key ring (a wrong one refuses the start, see
 * join-key-ring.ts) before anything is written, then signing with the ring's keys. Key files are
 * made only for what the ring does not hold yet: an instance joining a deployment needs its
 * at-rest key alone (issue #34) and writes no key file. Once the service runs, `ring.start()`
 * re-reads the ring every `KEY_RING_REFRESH_SECONDS` until `ring.stop()`.
 */
export async function openDeploymentKeys(
  config: Config,
  store: Pick<Store, "keyRing" | "log">,
  clock: Clock,
  logger: Logger,
): Promise<ServiceKeys & { ring: DeploymentKeyRing }> {
  const stored = await store.keyRing.list();
  const holds = (kind: string) => stored.some((k) => k.kind === kind);
  const atRest = loadAtRestKey(config, logger, { create: stored.length === 0 });
  const origin = logOrigin(config);
  await joinKeyRing({
    repo: store.keyRing,
    signingKey: loadSigningKey(config, logger, { create: !holds("service") }),
    atRest,
    origin,
    logSize: async () => (await store.log.latestCheckpoint())?.treeSize ?? 0,
    now: clock.now(),
    logger,
  });
  const tsaFile = await loadTsaFile(config, logger, { create: !holds("tsa") });
  await joinTsaCertificate(store.keyRing, atRest, tsaFile);
  const ring = await DeploymentKeyRing.open({
    repo: store.keyRing,
    atRest,
    refreshMs: config.KEY_RING_REFRESH_SECONDS * 1000,
    logOrigin: origin,
  });
  return { signing: ring.service, log: ring.log, atRest, ring };
}
