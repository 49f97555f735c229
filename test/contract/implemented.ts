import type { OperationId } from "../../server/contract/openapi.js";

/**
 * The REST operations the real server implements: the one place that gates the contract suite
 * against it (test/contract/server.test.ts and proxy.test.ts). Add an operation here when its
 * domain lands. The suite keeps the list honest both ways: a listed operation must pass its real
 * cases, and every operation not listed must still answer 501.
 */
export const implemented: ReadonlySet<OperationId> = new Set<OperationId>([
  "getRoot",
  "getHealth",
  "getReady",
  "getMetrics",
  "getOpenApi",
  "getDocs",
  "getRedoc",
  "getDashboard",
  "getDashboardStats",
  "getExplorerPage",
  "getVerifyPage",
  "createStamp",
  "getStamp",
  "searchStamps",
  "verifyStamp",
  "verifyStampJson",
  "createFingerprint",
  "compareFingerprints",
  "createFingerprintProof",
  "getShadow",
  "createIdentity",
  "getIdentity",
  "listPresets",
  "getPreset",
  "hashFile",
  "createVault",
  "heartbeatVault",
  "batchHeartbeat",
  "listVaults",
  "createHeartbeatGroup",
  "getVaultFees",
  "getVault",
  "releaseVault",
  "retrieveVaultKey",
  "burnVault",
  "addVaultMirror",
  "listExplorerVaults",
  "getExplorerStats",
  "getWsStats",
  "getStampProof",
  "getStampTimestamp",
  "getStampOpenTimestamps",
  "getStampSigstoreBundle",
  "getSigstoreTrustedRoot",
  "getStampLogTilesCheckpoint",
  "getStampLogTile",
  "getStampLogTile2",
  "getStampLogTile3",
  "getStampLogTile4",
  "getLogInfo",
  "getLogCheckpoint",
  "getLogInclusion",
  "getLogConsistency",
  "getTsaCertificate",
  "getKeyRing",
  "getLogTilesCheckpoint",
  "getLogTile",
  "getLogTile2",
  "getLogTile3",
  "getLogTile4",
]);

/**
 * Real cases ("<operationId> <case>") that cannot pass yet although their operation is
 * implemented, with the reason. They run as expected failures (`it.fails`), so they are neither
 * skipped silently nor able to linger: the run fails as soon as one of them passes.
 */
export const pendingCases: Readonly<Record<string, string>> = {};
