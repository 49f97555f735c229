// The public surface of @stampd/sdk. Everything a user imports comes from here.

export {
  type Checkpoint,
  CheckpointError,
  checkpointText,
  parseCheckpoint,
  verifierKey,
  verifyCheckpoint,
} from "../../core/checkpoint.js";
// The log as C2SP tiles: read from the service or any mirror, verified, monitored for forks.
export { decodeEntryBundle, EntryBundleError, encodeEntryBundle } from "../../core/entry-bundle.js";
// Offline verification (no network): stamp documents, fingerprint proofs and Merkle proofs.
export { type FingerprintProofResult, verifyFingerprintProof } from "../../core/fingerprint-proof.js";
export { type DuplicateMember, DuplicateMemberError, parseIJson } from "../../core/i-json.js";
export {
  type KeyRing,
  type RingKey,
  ringKeyProblem,
  ringTsaCaPem,
  ringTsaKeyProblem,
  ringVerifierKeys,
} from "../../core/key-ring.js";
export {
  type ForkEvidence,
  LogForkError,
  LogMonitor,
  type Observation,
} from "../../core/log-monitor.js";
export {
  consistencyProof,
  inclusionProof,
  leafHash,
  merkleRoot,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
} from "../../core/merkle.js";
export { type VerifyStampOptions, verifyStamp } from "../../core/stamp.js";
export { stampLeafData } from "../../core/stamp-leaf.js";
export {
  type ProofCheck,
  type StampProof,
  type VerifyProofOptions,
  verifyStampProof,
} from "../../core/stamp-proof.js";
export { parseTilePath, TILE_WIDTH, TilePathError, type TileRef, tilePath } from "../../core/tile-path.js";
export { httpTileSource, TiledLog, TileError, type TileSource } from "../../core/tiled-log.js";
export {
  consistentInTiles,
  type TiledStampOptions,
  tiledCheckpoint,
  verifyEntryInTiles,
  verifyStampInTiles,
} from "../../core/tiled-log-checks.js";
export {
  TRUST_RULE,
  type TrustEvidence,
  type TrustItem,
  trustItems,
  trustScore,
} from "../../core/trust.js";
export type { components, operations, paths } from "../../gen/openapi/types.js";
export {
  type BatchStampResponse as GrpcBatchStampResponse,
  type CreateStampResponse as GrpcCreateStampResponse,
  type GetStampResponse as GrpcGetStampResponse,
  HashAlgorithm as GrpcHashAlgorithm,
  type HealthCheckResponse as GrpcHealthCheckResponse,
  HealthCheckResponse_ServingStatus as GrpcServingStatus,
  type Proof as GrpcProof,
  type SearchStampsResponse as GrpcSearchStampsResponse,
  type Stamp as GrpcStamp,
  type StampMatch as GrpcStampMatch,
  StampService,
  StampStatus as GrpcStampStatus,
  type StreamStampResponse as GrpcStreamStampResponse,
  type VerifyResponse as GrpcVerifyResponse,
} from "../../gen/proto/svc/v1/stamp_pb.js";
// Proof bundles (`<name>.stampd.json`): gathered from the service, verified offline.
export {
  type VerifiedAnchorToken,
  type VerifyAnchorTokenOptions,
  verifyRfc3161Anchor,
} from "./bundle/anchor-token.js";
export {
  looksLikeProofBundle,
  PROOF_BUNDLE_FORMAT,
  type ProofBundle,
  ProofBundleError,
  parseProofBundle,
} from "./bundle/bundle.js";
export { type FetchBundleOptions, fetchProofBundle } from "./bundle/fetch-bundle.js";
export { type OpenTimestampsReading, readStampOpenTimestamps } from "./bundle/opentimestamps.js";
export {
  isSigstoreBundle,
  type SigstoreTrust,
  type SigstoreVerifyOptions,
  verifySigstoreBundle,
} from "./bundle/sigstore-bundle.js";
export {
  readTimestampToken,
  TimestampTokenError,
  type TimestampTokenOptions,
  type VerifiedTimestamp,
  verifyTimestampSignature,
  verifyTimestampToken,
} from "./bundle/timestamp-token.js";
export {
  type BundleCheck,
  type BundlePiece,
  type BundlePieceStatus,
  type VerifyBundleOptions,
  verifyProofBundle,
} from "./bundle/verify-bundle.js";
export {
  type ClientOptions,
  type ClientSocketOptions,
  createClient,
  DEFAULT_TIMEOUT_MS,
  StampdClient,
} from "./client.js";
export {
  type CreateStampInput,
  createGrpcClient,
  type GrpcClientOptions,
  type SearchStampsInput,
  StampdGrpc,
  type StreamStampInput,
  type VerifyInput,
} from "./grpc/client.js";
export { grpcError } from "./grpc/errors.js";
export {
  type CursorPage,
  type CursorPageBody,
  CursorPagePromise,
} from "./internal/cursor-pagination.js";
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type ErrorBody,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  type RateLimitBody,
  RateLimitError,
  StampdError,
  StampUnreachableStateError,
  StampWaitTimeoutError,
  UnprocessableEntityError,
} from "./internal/errors.js";
export type { UploadParams } from "./internal/multipart.js";
export { OffsetPage, type OffsetPageBody, PagePromise } from "./internal/pagination.js";
export type { RequestOptions } from "./internal/request.js";
export type { UploadOptions } from "./internal/resource.js";
export { DEFAULT_MAX_RETRIES, type RetryListener, type RetryNotice } from "./internal/retry.js";
export type { UploadProgress, UploadProgressListener } from "./internal/upload-progress.js";
export type { Uploadable } from "./internal/uploads.js";
export type { ExplorerVaultsQuery } from "./resources/explorer.js";
export type { CreateFingerprintParams } from "./resources/fingerprints.js";
export type { HashParams } from "./resources/hash.js";
export {
  DEFAULT_WAIT_TIMEOUT_MS,
  type WaitForOptions,
  type WaitUntil,
} from "./resources/stamp-waiter.js";
export type { CreateStampParams, StampSearchQuery } from "./resources/stamps.js";
export type { VaultListQuery } from "./resources/vault.js";
export type { VerifyDocumentParams, VerifyStampParams } from "./resources/verify.js";
// WebSocket (by the WebSocket engineer); `client.ws()` opens one with the client's settings.
export {
  type CloseInfo,
  RECOVERABLE_CLOSE_CODES,
  type ReconnectInfo,
  StampdSocket,
  type StampdSocketOptions,
} from "./ws/client.js";
export {
  WsConnectionError,
  WsEndpointError,
  WsEventOverflowError,
  WsQueueFullError,
  WsRequestError,
  WsTimeoutError,
} from "./ws/errors.js";
export type { WebSocketConstructor, WebSocketLike } from "./ws/socket-like.js";

/** The spec's schemas by name, e.g. `Schemas["StampResponse"]`. */
export type Schemas = import("../../gen/openapi/types.js").components["schemas"];
