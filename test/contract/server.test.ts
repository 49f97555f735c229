import { afterAll, beforeAll } from "vitest";
import { createLogger } from "../../server/logger.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { implemented, pendingCases } from "./implemented.js";
import { realTarget } from "./real-target.js";
import { type ContractTarget, contractSuite } from "./suite.js";

// The contract suite against the real server: the operations in implemented.ts for real, every
// other one must still answer 501. Uploads are limited to 1 MiB so that 413 is cheap to provoke.
let svc: RunningService | undefined;
let target: ContractTarget;

beforeAll(async () => {
  // Batches every 50 ms, so the proof operations find a confirmed stamp quickly.
  svc = await startService({ MAX_UPLOAD_BYTES: String(1024 * 1024), BATCH_INTERVAL_MS: "50" });
  const [owner, other] = [
    await issueKey(svc, { tier: "internal" }),
    await issueKey(svc, { tier: "internal" }),
  ];
  const issuer = devIssuer(svc.dataDir, createLogger(svc.config));
  target = realTarget({ baseUrl: svc.baseUrl, ownerKey: owner.key, otherKey: other.key, issuer });
});
afterAll(() => svc?.close());

contractSuite({ mode: "real", implemented, pending: pendingCases }, () => target);
