import type { Clock } from "../clock.js";
import { type Config, logOrigin } from "../config.js";
import type { Logger } from "../logger.js";
import type { Store } from "../store/store.js";
import { joinKeyRing, joinTsaCertificate } from "./join-key-ring.js";
import { DeploymentKeyRing } from "./key-ring.js";
import { loadConfiguredKeys, type ServiceKeys } from "./service-keys.js";
import { loadTsaFile } from "./tsa-keys.js";

/**
 * The service's keys as the deployment holds them: the configured secrets and the TSA of
 * `DATA_DIR/keys/tsa.pem` checked against the store's key ring (a wrong one refuses the start, see
 * join-key-ring.ts) before anything is written, then signing with the ring's keys. Once the
 * service runs, `ring.start()` re-reads the ring every `KEY_RING_REFRESH_SECONDS` until `ring.stop()`.
 */
export async function openDeploymentKeys(
  config: Config,
  store: Pick<Store, "keyRing" | "log">,
  clock: Clock,
  logger: Logger,
): Promise<ServiceKeys & { ring: DeploymentKeyRing }> {
  const { signingKey, atRest } = loadConfiguredKeys(config, logger);
  const origin = logOrigin(config);
  await joinKeyRing({
    repo: store.keyRing,
    signingKey,
    atRest,
    origin,
    logSize: async () => (await store.log.latestCheckpoint())?.treeSize ?? 0,
    now: clock.now(),
  });
  await joinTsaCertificate(store.keyRing, atRest, await loadTsaFile(config, logger));
  const ring = await DeploymentKeyRing.open({
    repo: store.keyRing,
    atRest,
    refreshMs: config.KEY_RING_REFRESH_SECONDS * 1000,
    logOrigin: origin,
  });
  return { signing: ring.service, log: ring.log, atRest, ring };
}
