// stampd gRPC contract, package svc.v1 (the service is described in README.md; the decisions
// behind it in docs/design.md).
//
// The messages, field names, field numbers, enums and enum values below are
// fixed by the published interface and must not change: its names win over buf STANDARD
// naming (see the lint exceptions in buf.yaml). New fields and values may be
// added only with new numbers (breaking check: FILE).
//
// ## Transport
//
// gRPC over HTTP/2 (h2c or TLS), served on a configurable host and port
// (default 50051). The server also serves the standard grpc.health.v1.Health
// and grpc.reflection.v1.ServerReflection services. On shutdown it stops
// accepting calls, lets running calls finish for a configurable grace period,
// then ends the remaining streams with UNAVAILABLE.
//
// StampService is also served over HTTP/1.1 on the REST port, at
// /svc.v1.StampService/<Method>, in the Connect and gRPC-Web protocols (not
// plain gRPC, which needs HTTP/2), for browsers and plain HTTP clients, with
// CORS for the REST API's allowed origins. Unary and server-streaming calls
// work there; client- and bidirectional streaming (StreamStamps) need HTTP/2.
// Everything else below holds on both ports.
//
// ## Authentication
//
// Authentication is optional for every RPC of StampService. A caller presents
// an API key in request metadata, in one of two forms:
//
//   authorization: Bearer <key>
//   x-api-key: <key>
//
// where <key> is `svc_live_` or `svc_test_` followed by 43 base64url
// characters. When both are present, `authorization` wins. A presented key
// that is malformed, unknown or revoked fails the call with UNAUTHENTICATED
// (it never falls back to anonymous access); each refused key costs 1.0 from
// the anonymous rate-limit bucket of the caller's address (as in REST), and
// once that is empty the call fails with RESOURCE_EXHAUSTED instead, so that
// guessing keys is throttled. A call without a key is
// anonymous: it is identified by the peer address (`x-forwarded-for` and
// `x-real-ip` metadata count only from a trusted proxy, as in REST) and gets
// the anonymous rate-limit tier; an authenticated call gets its key's tier
// (authenticated, premium or internal). The standard grpc.health.v1 and
// grpc.reflection.v1 services take no key and ignore one.
//
// ## Rate limiting
//
// One request budget per client across REST, WebSocket and gRPC: each call is
// charged the weight of the REST path it corresponds to. CreateStamp and
// GetStamp cost what `/stamps` costs (2.0), and so does SearchStamps (like
// REST `GET /stamps?hash=`); Verify what `/verify` costs (1.0); starting a
// WatchStamps stream 1.0 (like opening a WebSocket). HealthCheck is free. A
// call over the limit fails with RESOURCE_EXHAUSTED, the message naming the
// tier and the wait in seconds in the words of REST's 429 and the
// WebSocket's error, e.g.
// `Rate limit exceeded for tier anonymous. Retry after 3 seconds.`, and the
// trailer `grpc-retry-pushback-ms` carrying the wait in milliseconds (gRPC's
// retry pushback, honoured by clients with a retry policy) and `retry-after`
// carrying it in whole seconds (a response header of a Connect call's 429).
//
// ### Bulk items
//
// BatchStamp and StreamStamps are for stamping many hashes, so their items
// have a budget of their own, apart from the request budget: a BatchStamp
// call, and the start of a StreamStamps call, cost one request (2.0, as
// CreateStamp), and each item (a BatchStamp item, a StreamStamps request)
// costs one item of the caller's bulk items budget:
//
//   tier           items/min   items/hour
//   anonymous             60          600
//   authenticated     10 000      100 000
//   premium           50 000    1 000 000
//   internal         200 000   10 000 000
//
// Both lanes work as the request budget's do (token bucket by default, whose
// minute bucket holds a whole minute's items and refills continuously; with
// a sliding window, no more than the limit in any rolling minute or hour),
// so one charge may hold at most a minute's items.
// A BatchStamp's items are charged in one go, all or nothing, before any is
// stamped; BatchStamp takes at most MAX_BATCH_ITEMS items in any case. A
// charge the budget does not hold now fails with RESOURCE_EXHAUSTED and the
// pushback trailer, e.g.
// `Item limit exceeded for tier anonymous (60 items a minute). Retry after 4 seconds, when the budget covers all 10 items.`;
// a BatchStamp of more items than one charge may hold fails at once with
// RESOURCE_EXHAUSTED and no pushback trailer, as no wait lets it through,
// and nothing is charged:
// `item limit: 1000 items but tier anonymous covers at most 60 in one call; send at most 60 items a call`.
// StreamStamps charges the requests it stamps together as one charge, and
// one at a time when the budget holds less, so its first request past the
// budget ends the call with that refusal (the stamps before it stay made).
//
// What is left is said in metadata: BatchStamp's response headers (and the
// trailers of its RESOURCE_EXHAUSTED), and StreamStamps' trailers, carry
//
//   x-ratelimit-items-limit      items a minute of the caller's tier (also
//                                the most one charge may hold);
//   x-ratelimit-items-remaining  whole items the budget holds now;
//   x-ratelimit-items-reset      seconds, rounded up, until it is full again.
//
// A client stamping many hashes sends at most x-ratelimit-items-remaining
// items a call (at most x-ratelimit-items-limit) and waits out the pushback
// of a refusal (`stampd stamp --hash-only` does).
//
// ## content_hash
//
// Every content_hash has the form `<algorithm>:<hex digest>`:
//
//   sha3-256:<64 hex digits>   (SHA3-256, FIPS 202; the default algorithm)
//   sha256:<64 hex digits>     (SHA-256, FIPS 180-4)
//   blake3:<64 hex digits>     (BLAKE3, 256-bit output)
//
// The algorithm name is lower case and matched exactly. Hex digits are
// accepted in either case and are returned in lower case. A missing prefix,
// an unknown algorithm, a non-hex character or a digest of the wrong length
// fails with INVALID_ARGUMENT and a message naming the problem, e.g.
// `content_hash: unknown algorithm "md5" (expected sha3-256, sha256 or blake3)`
// or `content_hash: sha256 digest must be 64 hex digits, got 63`.
// stampd never receives document content over gRPC, only its hash.
//
// ## Malformed requests
//
// A request message whose bytes do not parse as the method's request type
// (a length that runs past the end, an unknown wire type, a string that is
// not UTF-8, ...) and a message with the compressed flag set but no
// grpc-encoding both fail with INVALID_ARGUMENT: they are the caller's fault,
// and INTERNAL stays reserved for faults of the server. No request message,
// or more than one, for a unary or server-streaming method fails with
// UNIMPLEMENTED (gRPC's "request cardinality violation"); an unsupported
// grpc-encoding with UNIMPLEMENTED; a message larger than the server's
// message limit with RESOURCE_EXHAUSTED.
//
// ## Limits on stamp input (all violations fail with INVALID_ARGUMENT)
//
//   description: at most 1000 characters.
//   metadata:    at most 32 entries; each key non-empty and at most 64
//                characters; each value at most 512 characters. The key
//                `__proto__` is refused (`metadata: key "__proto__" is not
//                allowed`), in JSON and binary alike: many JSON parsers
//                drop it or make it the object's prototype, so a signed
//                document holding it would read differently elsewhere.
//   BatchStamp:  at most MAX_BATCH_ITEMS items (default 1000, configurable).
//
// ## Connection limits (defaults; each is configurable)
//
//   GRPC_MAX_CONCURRENT_STREAMS (default 100): calls in flight on one
//       connection, advertised as HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS;
//       clients queue further calls or open another connection.
//   GRPC_MAX_MESSAGE_BYTES (default 4194304, 4 MiB): one request message; a
//       larger one fails the call with RESOURCE_EXHAUSTED.
//   MAX_HEADER_BYTES (default 16384, 16 KiB): the request metadata,
//       uncompressed (SETTINGS_MAX_HEADER_LIST_SIZE); a call with more is
//       reset with ENHANCE_YOUR_CALM (gRPC clients report RESOURCE_EXHAUSTED).
//   MAX_CONNECTIONS (default 10000): connections open at once; more are
//       closed when accepted.
//   GRPC_IDLE_TIMEOUT_MS (default 300000, 5 min): a connection with no call
//       in flight for this long is closed with GOAWAY (clients reconnect on
//       their next call); a connection whose streams are quiet stays open.
//   GRPC_MAX_CALLS_PER_CLIENT (default 100): calls one client address (an
//       IPv6 client: its IPV6_PREFIX_LENGTH network) has open at once over
//       all its connections; one more fails at once with RESOURCE_EXHAUSTED
//       ("too many calls open from this client: at most 100 at once
//       (GRPC_MAX_CALLS_PER_CLIENT); ...").
//   GRPC_CALL_IDLE_TIMEOUT_MS (default 60000, 1 min): a call whose client
//       sends nothing for this long before ending its requests (half-close)
//       fails with DEADLINE_EXCEEDED ("no request data for 60000 ms
//       (GRPC_CALL_IDLE_TIMEOUT_MS): send within it, or end the request
//       stream"). Only the request side counts: a WatchStamps call, or a
//       StreamStamps call that has half-closed, may wait for answers as
//       long as it likes; a StreamStamps call kept open to send later must
//       send within the timeout, or open a new call when it has more.
//   Deadlines are the client's: the server sets no upper bound on
//       grpc-timeout, as unary calls are short whatever their deadline and
//       streams are meant to stay open; the limits above bound what calls
//       can hold.
//
// ## Metadata stampd reads and sends besides the key
//
//   x-batch-id (BatchStamp request, optional): `sbt_` + 26-character ULID
//       (`bat_`, the prefix before 2026-11, is still accepted),
//       the id under which the batch's progress is published; choose one to
//       subscribe to the WebSocket `batch` channel before calling. Malformed
//       -> INVALID_ARGUMENT. Without it the server makes one.
//   x-batch-id (BatchStamp response header): the batch's id, either way.
//   x-batch-id (StreamStamps request, optional): the same form; with it the
//       call publishes `batch_progress` under that id (echoed in the
//       response header): every 100 requests, total being the requests
//       received so far, and 100 % when the call ends OK. Without it, none.
//   grpc-retry-pushback-ms (RESOURCE_EXHAUSTED trailer): see Rate limiting.
//   x-ratelimit-items-limit, x-ratelimit-items-remaining,
//   x-ratelimit-items-reset (BatchStamp response headers, StreamStamps
//       trailers): the bulk items budget, see Rate limiting.
//
// ## Error mapping (gRPC status codes used by StampService)
//
//   INVALID_ARGUMENT    malformed input: content_hash, stamp_id, description,
//                       metadata, algorithm disagreeing with the content_hash
//                       prefix, too many batch items, bad WatchStamps filter.
//                       The message names the field and the problem.
//                       Status messages quote at most the first 64
//                       characters of a value the caller sent, then its
//                       length: `unknown service "abc…" (70000 characters)`.
//                       SearchStamps: page_size above 500, a malformed
//                       page_token.
//   NOT_FOUND           GetStamp / Verify for a stamp_id that matches no stamp;
//                       HealthCheck for an unknown service name.
//   UNAUTHENTICATED     a presented API key is malformed, unknown or revoked.
//   RESOURCE_EXHAUSTED  the caller's rate limit is exceeded (or, with a refused
//                       key, its address's); a request message over
//                       GRPC_MAX_MESSAGE_BYTES; a WatchStamps
//                       client that reads too slowly for the server's buffer;
//                       more calls open than GRPC_MAX_CALLS_PER_CLIENT.
//   DEADLINE_EXCEEDED   the caller's deadline (grpc-timeout) passed first; or
//                       the caller sent nothing for GRPC_CALL_IDLE_TIMEOUT_MS
//                       before ending its requests.
//   CANCELLED           the caller cancelled the call, reset its stream or
//                       dropped the connection (also before half-closing
//                       its request); the server records it as CANCELLED
//                       and does not log it as an error.
//   UNAVAILABLE         the server is shutting down (new calls are refused,
//                       streams still open at the end of the grace period end
//                       with it), or still starting ("the service is starting;
//                       retry shortly": health answers NOT_SERVING meanwhile),
//                       or the store does not answer within STORE_TIMEOUT_MS
//                       (PostgreSQL down, stalled or failing over; the SQLite
//                       disk full: "the store is unavailable", with the wait
//                       in the grpc-retry-pushback-ms trailer; health answers
//                       NOT_SERVING until the store answers again), or the
//                       server's memory bound for request bodies is reached;
//                       clients may retry, here later or on another instance.
//   INTERNAL            an unexpected server failure. The message is generic
//                       and never contains internals (stack traces, SQL, paths).

// @generated by protoc-gen-es v2.13.0 with parameter "target=ts,import_extension=js"
// @generated from file svc/v1/stamp.proto (package svc.v1, syntax proto3)
/* eslint-disable */

import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";

/**
 * Describes the file svc/v1/stamp.proto.
 */
export const file_svc_v1_stamp: GenFile = /*@__PURE__*/
  fileDesc("ChJzdmMvdjEvc3RhbXAucHJvdG8SBnN2Yy52MSK6AgoFU3RhbXASCgoCaWQYASABKAkSFAoMY29udGVudF9oYXNoGAIgASgJEigKCWFsZ29yaXRobRgDIAEoDjIVLnN2Yy52MS5IYXNoQWxnb3JpdGhtEi0KCXRpbWVzdGFtcBgEIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASIwoGc3RhdHVzGAUgASgOMhMuc3ZjLnYxLlN0YW1wU3RhdHVzEhMKC2Rlc2NyaXB0aW9uGAYgASgJEi0KCG1ldGFkYXRhGAcgAygLMhsuc3ZjLnYxLlN0YW1wLk1ldGFkYXRhRW50cnkSHAoFcHJvb2YYCCABKAsyDS5zdmMudjEuUHJvb2YaLwoNTWV0YWRhdGFFbnRyeRILCgNrZXkYASABKAkSDQoFdmFsdWUYAiABKAk6AjgBInQKBVByb29mEhcKD3ByaW1lX3NpZ25hdHVyZRgBIAEoCRIRCgl3aXRuZXNzZXMYAiADKAkSFAoMY2hhaW5fYW5jaG9yGAMgASgJEhMKC21lcmtsZV9yb290GAQgASgJEhQKDG1lcmtsZV9wcm9vZhgFIAMoCSLWAQoSQ3JlYXRlU3RhbXBSZXF1ZXN0EhQKDGNvbnRlbnRfaGFzaBgBIAEoCRIoCglhbGdvcml0aG0YAiABKA4yFS5zdmMudjEuSGFzaEFsZ29yaXRobRITCgtkZXNjcmlwdGlvbhgDIAEoCRI6CghtZXRhZGF0YRgEIAMoCzIoLnN2Yy52MS5DcmVhdGVTdGFtcFJlcXVlc3QuTWV0YWRhdGFFbnRyeRovCg1NZXRhZGF0YUVudHJ5EgsKA2tleRgBIAEoCRINCgV2YWx1ZRgCIAEoCToCOAEiMwoTQ3JlYXRlU3RhbXBSZXNwb25zZRIcCgVzdGFtcBgBIAEoCzINLnN2Yy52MS5TdGFtcCIjCg9HZXRTdGFtcFJlcXVlc3QSEAoIc3RhbXBfaWQYASABKAkiMAoQR2V0U3RhbXBSZXNwb25zZRIcCgVzdGFtcBgBIAEoCzINLnN2Yy52MS5TdGFtcCI3Cg1WZXJpZnlSZXF1ZXN0EhAKCHN0YW1wX2lkGAEgASgJEhQKDGNvbnRlbnRfaGFzaBgCIAEoCSLLAQoOVmVyaWZ5UmVzcG9uc2USEAoIdmVyaWZpZWQYASABKAgSEAoIc3RhbXBfaWQYAiABKAkSFAoMY29udGVudF9oYXNoGAMgASgJEi0KCXRpbWVzdGFtcBgEIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASDwoHbWVzc2FnZRgFIAEoCRITCgt0cnVzdF9zY29yZRgGIAEoBRIXCg90cnVzdF90aHJlc2hvbGQYByABKAUSEQoJdHJ1c3RfbWV0GAggASgIIj4KEUJhdGNoU3RhbXBSZXF1ZXN0EikKBWl0ZW1zGAEgAygLMhouc3ZjLnYxLkNyZWF0ZVN0YW1wUmVxdWVzdCJgChJCYXRjaFN0YW1wUmVzcG9uc2USHQoGc3RhbXBzGAEgAygLMg0uc3ZjLnYxLlN0YW1wEhUKDXN1Y2Nlc3NfY291bnQYAiABKAUSFAoMZmFpbGVkX2NvdW50GAMgASgFIpcBChJTdHJlYW1TdGFtcFJlcXVlc3QSFAoMY29udGVudF9oYXNoGAEgASgJEjoKCG1ldGFkYXRhGAIgAygLMiguc3ZjLnYxLlN0cmVhbVN0YW1wUmVxdWVzdC5NZXRhZGF0YUVudHJ5Gi8KDU1ldGFkYXRhRW50cnkSCwoDa2V5GAEgASgJEg0KBXZhbHVlGAIgASgJOgI4ASJFChNTdHJlYW1TdGFtcFJlc3BvbnNlEhwKBXN0YW1wGAEgASgLMg0uc3ZjLnYxLlN0YW1wEhAKCHNlcXVlbmNlGAIgASgFIiQKEldhdGNoU3RhbXBzUmVxdWVzdBIOCgZmaWx0ZXIYASABKAkiUgoTU2VhcmNoU3RhbXBzUmVxdWVzdBIUCgxjb250ZW50X2hhc2gYASABKAkSEQoJcGFnZV9zaXplGAIgASgFEhIKCnBhZ2VfdG9rZW4YAyABKAkiRwoKU3RhbXBNYXRjaBIKCgJpZBgBIAEoCRItCgl0aW1lc3RhbXAYAiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wImkKFFNlYXJjaFN0YW1wc1Jlc3BvbnNlEhQKDGNvbnRlbnRfaGFzaBgBIAEoCRIiCgZzdGFtcHMYAiADKAsyEi5zdmMudjEuU3RhbXBNYXRjaBIXCg9uZXh0X3BhZ2VfdG9rZW4YAyABKAkiLAoYR2V0U2lnc3RvcmVCdW5kbGVSZXF1ZXN0EhAKCHN0YW1wX2lkGAEgASgJIjAKGUdldFNpZ3N0b3JlQnVuZGxlUmVzcG9uc2USEwoLYnVuZGxlX2pzb24YASABKAkiJQoSSGVhbHRoQ2hlY2tSZXF1ZXN0Eg8KB3NlcnZpY2UYASABKAkijAEKE0hlYWx0aENoZWNrUmVzcG9uc2USOQoGc3RhdHVzGAEgASgOMikuc3ZjLnYxLkhlYWx0aENoZWNrUmVzcG9uc2UuU2VydmluZ1N0YXR1cyI6Cg1TZXJ2aW5nU3RhdHVzEgsKB1VOS05PV04QABILCgdTRVJWSU5HEAESDwoLTk9UX1NFUlZJTkcQAiqCAQoNSGFzaEFsZ29yaXRobRIeChpIQVNIX0FMR09SSVRITV9VTlNQRUNJRklFRBAAEhsKF0hBU0hfQUxHT1JJVEhNX1NIQTNfMjU2EAESGQoVSEFTSF9BTEdPUklUSE1fU0hBMjU2EAISGQoVSEFTSF9BTEdPUklUSE1fQkxBS0UzEAMqfAoLU3RhbXBTdGF0dXMSHAoYU1RBTVBfU1RBVFVTX1VOU1BFQ0lGSUVEEAASGAoUU1RBTVBfU1RBVFVTX1BFTkRJTkcQARIaChZTVEFNUF9TVEFUVVNfQ09ORklSTUVEEAISGQoVU1RBTVBfU1RBVFVTX0FOQ0hPUkVEEAMyiQUKDFN0YW1wU2VydmljZRJGCgtDcmVhdGVTdGFtcBIaLnN2Yy52MS5DcmVhdGVTdGFtcFJlcXVlc3QaGy5zdmMudjEuQ3JlYXRlU3RhbXBSZXNwb25zZRI9CghHZXRTdGFtcBIXLnN2Yy52MS5HZXRTdGFtcFJlcXVlc3QaGC5zdmMudjEuR2V0U3RhbXBSZXNwb25zZRI3CgZWZXJpZnkSFS5zdmMudjEuVmVyaWZ5UmVxdWVzdBoWLnN2Yy52MS5WZXJpZnlSZXNwb25zZRJDCgpCYXRjaFN0YW1wEhkuc3ZjLnYxLkJhdGNoU3RhbXBSZXF1ZXN0Ghouc3ZjLnYxLkJhdGNoU3RhbXBSZXNwb25zZRI6CgtXYXRjaFN0YW1wcxIaLnN2Yy52MS5XYXRjaFN0YW1wc1JlcXVlc3QaDS5zdmMudjEuU3RhbXAwARJLCgxTdHJlYW1TdGFtcHMSGi5zdmMudjEuU3RyZWFtU3RhbXBSZXF1ZXN0Ghsuc3ZjLnYxLlN0cmVhbVN0YW1wUmVzcG9uc2UoATABEkkKDFNlYXJjaFN0YW1wcxIbLnN2Yy52MS5TZWFyY2hTdGFtcHNSZXF1ZXN0Ghwuc3ZjLnYxLlNlYXJjaFN0YW1wc1Jlc3BvbnNlElgKEUdldFNpZ3N0b3JlQnVuZGxlEiAuc3ZjLnYxLkdldFNpZ3N0b3JlQnVuZGxlUmVxdWVzdBohLnN2Yy52MS5HZXRTaWdzdG9yZUJ1bmRsZVJlc3BvbnNlEkYKC0hlYWx0aENoZWNrEhouc3ZjLnYxLkhlYWx0aENoZWNrUmVxdWVzdBobLnN2Yy52MS5IZWFsdGhDaGVja1Jlc3BvbnNlYgZwcm90bzM", [file_google_protobuf_timestamp]);

/**
 * A stamp: the tamper-evident record that a content hash existed at a time.
 *
 * @generated from message svc.v1.Stamp
 */
export type Stamp = Message<"svc.v1.Stamp"> & {
  /**
   * Stamp id: `stp_` followed by a 26-character ULID (Crockford base 32,
   * time-ordered), e.g. `stp_01J9Z8K3M4N5P6Q7R8S9T0V1W2`.
   *
   * @generated from field: string id = 1;
   */
  id: string;

  /**
   * The stamped hash, `<algorithm>:<lower-case hex digest>` (see the file
   * header).
   *
   * @generated from field: string content_hash = 2;
   */
  contentHash: string;

  /**
   * Algorithm of content_hash, the same as its prefix (never
   * HASH_ALGORITHM_UNSPECIFIED).
   *
   * @generated from field: svc.v1.HashAlgorithm algorithm = 3;
   */
  algorithm: HashAlgorithm;

  /**
   * When the stamp was created (server clock, UTC).
   *
   * @generated from field: google.protobuf.Timestamp timestamp = 4;
   */
  timestamp?: Timestamp | undefined;

  /**
   * Current lifecycle state (never STAMP_STATUS_UNSPECIFIED).
   *
   * @generated from field: svc.v1.StampStatus status = 5;
   */
  status: StampStatus;

  /**
   * Free text supplied at creation (at most 1000 characters); empty if none.
   *
   * @generated from field: string description = 6;
   */
  description: string;

  /**
   * Key/value pairs supplied at creation (at most 32 entries, key at most 64
   * and value at most 512 characters).
   *
   * @generated from field: map<string, string> metadata = 7;
   */
  metadata: { [key: string]: string };

  /**
   * Cryptographic proof. Not set while status is PENDING; set from CONFIRMED
   * on, and extended as anchors confirm.
   *
   * @generated from field: svc.v1.Proof proof = 8;
   */
  proof?: Proof | undefined;
};

/**
 * Describes the message svc.v1.Stamp.
 * Use `create(StampSchema)` to create a new message.
 */
export const StampSchema: GenMessage<Stamp> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 0);

/**
 * The cryptographic proof of a stamp. Every stamp is a leaf of a Merkle batch;
 * the service signs the batch root, and the root is anchored externally.
 *
 * @generated from message svc.v1.Proof
 */
export type Proof = Message<"svc.v1.Proof"> & {
  /**
   * The service's Ed25519 signature (RFC 8032) over the batch, as 128
   * lower-case hex digits: over `stampd.proof-batch/v2`, a line feed and the
   * RFC 8785 text of the batch's id, root, sealed_at and tree_size (the
   * `batch` of GET /stamps/{stamp_id}/proof holds them); batches sealed
   * before version 2 carry one over the 32 bytes of the Merkle root alone.
   *
   * @generated from field: string prime_signature = 1;
   */
  primeSignature: string;

  /**
   * References of the anchors that have confirmed so far, in confirmation
   * order, each `<anchor type>:<reference>`, e.g. `log:<checkpoint>`
   * (stampd's transparency log checkpoint), `rfc3161:<SHA-256 hex of the
   * time-stamp token>`, `bitcoin:<txid>`, `ethereum:<tx hash>`.
   *
   * @generated from field: repeated string witnesses = 2;
   */
  witnesses: string[];

  /**
   * Reference of the latest blockchain anchor (`bitcoin:<txid>` or
   * `ethereum:<tx hash>`), or empty when no chain anchor has confirmed.
   *
   * @generated from field: string chain_anchor = 3;
   */
  chainAnchor: string;

  /**
   * Root of the stamp's Merkle batch (RFC 6962 Merkle Tree Hash, SHA-256), as
   * 64 lower-case hex digits.
   *
   * @generated from field: string merkle_root = 4;
   */
  merkleRoot: string;

  /**
   * RFC 6962 (section 2.1.1) audit path from the stamp's leaf to merkle_root:
   * the sibling node hashes from the leaf level upwards, each 64 lower-case
   * hex digits. Empty for a batch of one stamp. Checking the path also needs
   * the leaf's index and the batch size, which this message does not carry.
   *
   * @generated from field: repeated string merkle_proof = 5;
   */
  merkleProof: string[];
};

/**
 * Describes the message svc.v1.Proof.
 * Use `create(ProofSchema)` to create a new message.
 */
export const ProofSchema: GenMessage<Proof> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 1);

/**
 * Request of CreateStamp; also one item of BatchStampRequest.
 *
 * @generated from message svc.v1.CreateStampRequest
 */
export type CreateStampRequest = Message<"svc.v1.CreateStampRequest"> & {
  /**
   * Required. `<algorithm>:<hex digest>` of the document (see the file
   * header); malformed -> INVALID_ARGUMENT.
   *
   * @generated from field: string content_hash = 1;
   */
  contentHash: string;

  /**
   * Optional. HASH_ALGORITHM_UNSPECIFIED: use the content_hash prefix. When
   * set, it must agree with the prefix, else INVALID_ARGUMENT.
   *
   * @generated from field: svc.v1.HashAlgorithm algorithm = 2;
   */
  algorithm: HashAlgorithm;

  /**
   * Optional free text, at most 1000 characters, else INVALID_ARGUMENT.
   *
   * @generated from field: string description = 3;
   */
  description: string;

  /**
   * Optional, at most 32 entries; key non-empty and at most 64 characters,
   * value at most 512 characters; else INVALID_ARGUMENT.
   *
   * @generated from field: map<string, string> metadata = 4;
   */
  metadata: { [key: string]: string };
};

/**
 * Describes the message svc.v1.CreateStampRequest.
 * Use `create(CreateStampRequestSchema)` to create a new message.
 */
export const CreateStampRequestSchema: GenMessage<CreateStampRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 2);

/**
 * Response of CreateStamp.
 *
 * @generated from message svc.v1.CreateStampResponse
 */
export type CreateStampResponse = Message<"svc.v1.CreateStampResponse"> & {
  /**
   * The created stamp, status STAMP_STATUS_PENDING.
   *
   * @generated from field: svc.v1.Stamp stamp = 1;
   */
  stamp?: Stamp | undefined;
};

/**
 * Describes the message svc.v1.CreateStampResponse.
 * Use `create(CreateStampResponseSchema)` to create a new message.
 */
export const CreateStampResponseSchema: GenMessage<CreateStampResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 3);

/**
 * Request of GetStamp.
 *
 * @generated from message svc.v1.GetStampRequest
 */
export type GetStampRequest = Message<"svc.v1.GetStampRequest"> & {
  /**
   * Required. Id of the stamp (`stp_` + 26-character ULID); empty or
   * malformed -> INVALID_ARGUMENT; no such stamp -> NOT_FOUND.
   *
   * @generated from field: string stamp_id = 1;
   */
  stampId: string;
};

/**
 * Describes the message svc.v1.GetStampRequest.
 * Use `create(GetStampRequestSchema)` to create a new message.
 */
export const GetStampRequestSchema: GenMessage<GetStampRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 4);

/**
 * Response of GetStamp.
 *
 * @generated from message svc.v1.GetStampResponse
 */
export type GetStampResponse = Message<"svc.v1.GetStampResponse"> & {
  /**
   * The stamp in its current state.
   *
   * @generated from field: svc.v1.Stamp stamp = 1;
   */
  stamp?: Stamp | undefined;
};

/**
 * Describes the message svc.v1.GetStampResponse.
 * Use `create(GetStampResponseSchema)` to create a new message.
 */
export const GetStampResponseSchema: GenMessage<GetStampResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 5);

/**
 * Request of Verify.
 *
 * @generated from message svc.v1.VerifyRequest
 */
export type VerifyRequest = Message<"svc.v1.VerifyRequest"> & {
  /**
   * Required. Id of the stamp to check; empty or malformed -> INVALID_ARGUMENT;
   * no such stamp -> NOT_FOUND.
   *
   * @generated from field: string stamp_id = 1;
   */
  stampId: string;

  /**
   * Optional. `<algorithm>:<hex digest>` of the document to check against the
   * stamp; malformed -> INVALID_ARGUMENT. Empty: check only the stamp's own
   * signature and proof.
   *
   * @generated from field: string content_hash = 2;
   */
  contentHash: string;
};

/**
 * Describes the message svc.v1.VerifyRequest.
 * Use `create(VerifyRequestSchema)` to create a new message.
 */
export const VerifyRequestSchema: GenMessage<VerifyRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 6);

/**
 * Response of Verify. A mismatch is a result (verified = false), not an error.
 *
 * @generated from message svc.v1.VerifyResponse
 */
export type VerifyResponse = Message<"svc.v1.VerifyResponse"> & {
  /**
   * True when the stamp's service signature and proof are valid and, if a
   * content_hash was supplied, it equals the stamped content_hash (same
   * algorithm, same digest).
   *
   * @generated from field: bool verified = 1;
   */
  verified: boolean;

  /**
   * The stamp_id that was checked.
   *
   * @generated from field: string stamp_id = 2;
   */
  stampId: string;

  /**
   * The stamp's recorded content_hash (lower-case hex).
   *
   * @generated from field: string content_hash = 3;
   */
  contentHash: string;

  /**
   * The stamp's creation time.
   *
   * @generated from field: google.protobuf.Timestamp timestamp = 4;
   */
  timestamp?: Timestamp | undefined;

  /**
   * Human-readable outcome, e.g. `content hash matches`, `content hash does
   * not match`, `algorithm differs: stamp uses sha3-256`,
   * `stamp signature invalid`.
   *
   * @generated from field: string message = 5;
   */
  message: string;

  /**
   * The stamp's trust score, as REST `VerifyResponse.trust_score`: the same
   * function of the same evidence (service signature +1, author signature +2,
   * sealed in a signed batch +1, in a signed log checkpoint +3, each other
   * confirmed anchor +3; pending, unavailable and failed anchors nothing).
   *
   * @generated from field: int32 trust_score = 6;
   */
  trustScore: number;

  /**
   * The threshold the stamp's document sets.
   *
   * @generated from field: int32 trust_threshold = 7;
   */
  trustThreshold: number;

  /**
   * trust_score >= trust_threshold.
   *
   * @generated from field: bool trust_met = 8;
   */
  trustMet: boolean;
};

/**
 * Describes the message svc.v1.VerifyResponse.
 * Use `create(VerifyResponseSchema)` to create a new message.
 */
export const VerifyResponseSchema: GenMessage<VerifyResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 7);

/**
 * Request of BatchStamp.
 *
 * @generated from message svc.v1.BatchStampRequest
 */
export type BatchStampRequest = Message<"svc.v1.BatchStampRequest"> & {
  /**
   * The stamps to create, at most MAX_BATCH_ITEMS (default 1000,
   * configurable); more -> INVALID_ARGUMENT and nothing is created. Each item
   * follows the rules of CreateStampRequest. An empty list is valid and
   * creates nothing.
   *
   * @generated from field: repeated svc.v1.CreateStampRequest items = 1;
   */
  items: CreateStampRequest[];
};

/**
 * Describes the message svc.v1.BatchStampRequest.
 * Use `create(BatchStampRequestSchema)` to create a new message.
 */
export const BatchStampRequestSchema: GenMessage<BatchStampRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 8);

/**
 * Response of BatchStamp.
 *
 * @generated from message svc.v1.BatchStampResponse
 */
export type BatchStampResponse = Message<"svc.v1.BatchStampResponse"> & {
  /**
   * The created stamps, in request order; failed items are left out.
   *
   * @generated from field: repeated svc.v1.Stamp stamps = 1;
   */
  stamps: Stamp[];

  /**
   * Number of items that created a stamp (= the length of stamps).
   *
   * @generated from field: int32 success_count = 2;
   */
  successCount: number;

  /**
   * Number of items that failed validation. success_count + failed_count
   * equals the number of items.
   *
   * @generated from field: int32 failed_count = 3;
   */
  failedCount: number;
};

/**
 * Describes the message svc.v1.BatchStampResponse.
 * Use `create(BatchStampResponseSchema)` to create a new message.
 */
export const BatchStampResponseSchema: GenMessage<BatchStampResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 9);

/**
 * One request message of the StreamStamps stream: creates one stamp.
 *
 * @generated from message svc.v1.StreamStampRequest
 */
export type StreamStampRequest = Message<"svc.v1.StreamStampRequest"> & {
  /**
   * Required. `<algorithm>:<hex digest>` (see the file header); the
   * algorithm is taken from its prefix.
   *
   * @generated from field: string content_hash = 1;
   */
  contentHash: string;

  /**
   * Optional, same limits as CreateStampRequest.metadata.
   *
   * @generated from field: map<string, string> metadata = 2;
   */
  metadata: { [key: string]: string };
};

/**
 * Describes the message svc.v1.StreamStampRequest.
 * Use `create(StreamStampRequestSchema)` to create a new message.
 */
export const StreamStampRequestSchema: GenMessage<StreamStampRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 10);

/**
 * One response message of the StreamStamps stream.
 *
 * @generated from message svc.v1.StreamStampResponse
 */
export type StreamStampResponse = Message<"svc.v1.StreamStampResponse"> & {
  /**
   * The stamp created for the request with the same sequence number.
   *
   * @generated from field: svc.v1.Stamp stamp = 1;
   */
  stamp?: Stamp | undefined;

  /**
   * Position of the answered request in this call: 1 for the first request,
   * then 2, 3, ... without gaps.
   *
   * @generated from field: int32 sequence = 2;
   */
  sequence: number;
};

/**
 * Describes the message svc.v1.StreamStampResponse.
 * Use `create(StreamStampResponseSchema)` to create a new message.
 */
export const StreamStampResponseSchema: GenMessage<StreamStampResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 11);

/**
 * Request of WatchStamps.
 *
 * @generated from message svc.v1.WatchStampsRequest
 */
export type WatchStampsRequest = Message<"svc.v1.WatchStampsRequest"> & {
  /**
   * Which stamps to deliver. Empty: all stamps. Otherwise whitespace-separated
   * terms that must all match (AND). Each term is `name=value`, split at its
   * first `=`:
   *
   *   status=pending|confirmed|anchored     the stamp's status
   *   algorithm=sha3-256|sha256|blake3      the content_hash prefix
   *   <key>=<value>                         metadata[<key>] equals <value>
   *
   * Matching is exact and case-sensitive. `status` and `algorithm` always
   * name the stamp's fields, never metadata keys. Example:
   * `status=confirmed algorithm=sha256 project=alpha`.
   * A term without `=`, with an empty name, or with a status or algorithm
   * value not listed above -> INVALID_ARGUMENT.
   *
   * @generated from field: string filter = 1;
   */
  filter: string;
};

/**
 * Describes the message svc.v1.WatchStampsRequest.
 * Use `create(WatchStampsRequestSchema)` to create a new message.
 */
export const WatchStampsRequestSchema: GenMessage<WatchStampsRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 12);

/**
 * Request of SearchStamps.
 *
 * @generated from message svc.v1.SearchStampsRequest
 */
export type SearchStampsRequest = Message<"svc.v1.SearchStampsRequest"> & {
  /**
   * Required. `<algorithm>:<hex digest>` of the document (see the file
   * header); malformed -> INVALID_ARGUMENT. Stamps made with that algorithm
   * and digest match; a `sha256:` hash also matches uploads (REST multipart,
   * stamped SHA3-256) whose content has that SHA-256, computed in the same
   * read since migration 0016 (docs/sigstore.md).
   *
   * @generated from field: string content_hash = 1;
   */
  contentHash: string;

  /**
   * Stamps per page: 0 means 50; at most 500, more -> INVALID_ARGUMENT.
   *
   * @generated from field: int32 page_size = 2;
   */
  pageSize: number;

  /**
   * Empty for the first page; else the next_page_token of the previous page
   * (a stamp id); malformed -> INVALID_ARGUMENT.
   *
   * @generated from field: string page_token = 3;
   */
  pageToken: string;
};

/**
 * Describes the message svc.v1.SearchStampsRequest.
 * Use `create(SearchStampsRequestSchema)` to create a new message.
 */
export const SearchStampsRequestSchema: GenMessage<SearchStampsRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 13);

/**
 * A stamp found by SearchStamps. GetStamp returns the whole stamp.
 *
 * @generated from message svc.v1.StampMatch
 */
export type StampMatch = Message<"svc.v1.StampMatch"> & {
  /**
   * Stamp id (`stp_` + 26-character ULID).
   *
   * @generated from field: string id = 1;
   */
  id: string;

  /**
   * When the stamp was created (server clock, UTC).
   *
   * @generated from field: google.protobuf.Timestamp timestamp = 2;
   */
  timestamp?: Timestamp | undefined;
};

/**
 * Describes the message svc.v1.StampMatch.
 * Use `create(StampMatchSchema)` to create a new message.
 */
export const StampMatchSchema: GenMessage<StampMatch> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 14);

/**
 * Response of SearchStamps: one page, newest first.
 *
 * @generated from message svc.v1.SearchStampsResponse
 */
export type SearchStampsResponse = Message<"svc.v1.SearchStampsResponse"> & {
  /**
   * The hash searched for, `<algorithm>:<lower-case hex digest>`.
   *
   * @generated from field: string content_hash = 1;
   */
  contentHash: string;

  /**
   * The matching stamps of this page, newest first (by timestamp, then id,
   * both descending); empty when the hash was never stamped.
   *
   * @generated from field: repeated svc.v1.StampMatch stamps = 2;
   */
  stamps: StampMatch[];

  /**
   * The page_token of the next page; empty on the last page.
   *
   * @generated from field: string next_page_token = 3;
   */
  nextPageToken: string;
};

/**
 * Describes the message svc.v1.SearchStampsResponse.
 * Use `create(SearchStampsResponseSchema)` to create a new message.
 */
export const SearchStampsResponseSchema: GenMessage<SearchStampsResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 15);

/**
 * Request of GetSigstoreBundle.
 *
 * @generated from message svc.v1.GetSigstoreBundleRequest
 */
export type GetSigstoreBundleRequest = Message<"svc.v1.GetSigstoreBundleRequest"> & {
  /**
   * Stamp id, `stp_` followed by a ULID.
   *
   * @generated from field: string stamp_id = 1;
   */
  stampId: string;
};

/**
 * Describes the message svc.v1.GetSigstoreBundleRequest.
 * Use `create(GetSigstoreBundleRequestSchema)` to create a new message.
 */
export const GetSigstoreBundleRequestSchema: GenMessage<GetSigstoreBundleRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 16);

/**
 * Response of GetSigstoreBundle.
 *
 * @generated from message svc.v1.GetSigstoreBundleResponse
 */
export type GetSigstoreBundleResponse = Message<"svc.v1.GetSigstoreBundleResponse"> & {
  /**
   * The bundle in protobuf-specs' JSON mapping (media type
   * `application/vnd.dev.sigstore.bundle.v0.3+json`), the text Sigstore's
   * clients read: the same document as REST's.
   *
   * @generated from field: string bundle_json = 1;
   */
  bundleJson: string;
};

/**
 * Describes the message svc.v1.GetSigstoreBundleResponse.
 * Use `create(GetSigstoreBundleResponseSchema)` to create a new message.
 */
export const GetSigstoreBundleResponseSchema: GenMessage<GetSigstoreBundleResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 17);

/**
 * Request of HealthCheck.
 *
 * @generated from message svc.v1.HealthCheckRequest
 */
export type HealthCheckRequest = Message<"svc.v1.HealthCheckRequest"> & {
  /**
   * Empty (the whole server) or `svc.v1.StampService`. Any other name ->
   * NOT_FOUND.
   *
   * @generated from field: string service = 1;
   */
  service: string;
};

/**
 * Describes the message svc.v1.HealthCheckRequest.
 * Use `create(HealthCheckRequestSchema)` to create a new message.
 */
export const HealthCheckRequestSchema: GenMessage<HealthCheckRequest> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 18);

/**
 * Response of HealthCheck.
 *
 * @generated from message svc.v1.HealthCheckResponse
 */
export type HealthCheckResponse = Message<"svc.v1.HealthCheckResponse"> & {
  /**
   * Status of the requested service.
   *
   * @generated from field: svc.v1.HealthCheckResponse.ServingStatus status = 1;
   */
  status: HealthCheckResponse_ServingStatus;
};

/**
 * Describes the message svc.v1.HealthCheckResponse.
 * Use `create(HealthCheckResponseSchema)` to create a new message.
 */
export const HealthCheckResponseSchema: GenMessage<HealthCheckResponse> = /*@__PURE__*/
  messageDesc(file_svc_v1_stamp, 19);

/**
 * Serving status. The interface fixes these value names without a prefix (they
 * mirror grpc.health.v1).
 *
 * @generated from enum svc.v1.HealthCheckResponse.ServingStatus
 */
export enum HealthCheckResponse_ServingStatus {
  /**
   * Not determined; not returned by stampd.
   *
   * @generated from enum value: UNKNOWN = 0;
   */
  UNKNOWN = 0,

  /**
   * The service is healthy and accepts calls.
   *
   * @generated from enum value: SERVING = 1;
   */
  SERVING = 1,

  /**
   * The service is shutting down and does not accept new calls.
   *
   * @generated from enum value: NOT_SERVING = 2;
   */
  NOT_SERVING = 2,
}

/**
 * Describes the enum svc.v1.HealthCheckResponse.ServingStatus.
 */
export const HealthCheckResponse_ServingStatusSchema: GenEnum<HealthCheckResponse_ServingStatus> = /*@__PURE__*/
  enumDesc(file_svc_v1_stamp, 19, 0);

/**
 * Hash algorithm of a stamp's content_hash.
 *
 * Every algorithm stampd accepts has a value, and responses always set it.
 * The `<algorithm>:` prefix of content_hash states the same algorithm; a
 * client built before HASH_ALGORITHM_BLAKE3 existed reads the value 3 as an
 * unknown enum value and can still rely on the prefix.
 *
 * @generated from enum svc.v1.HashAlgorithm
 */
export enum HashAlgorithm {
  /**
   * Not set. In requests: take the algorithm from the content_hash prefix.
   * Never returned in responses.
   *
   * @generated from enum value: HASH_ALGORITHM_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * SHA3-256 (FIPS 202), content_hash prefix `sha3-256:`; the default.
   *
   * @generated from enum value: HASH_ALGORITHM_SHA3_256 = 1;
   */
  SHA3_256 = 1,

  /**
   * SHA-256 (FIPS 180-4), content_hash prefix `sha256:`.
   *
   * @generated from enum value: HASH_ALGORITHM_SHA256 = 2;
   */
  SHA256 = 2,

  /**
   * BLAKE3 (256-bit output), content_hash prefix `blake3:`. Added after the
   * first three values; before it, blake3 stamps reported
   * HASH_ALGORITHM_UNSPECIFIED.
   *
   * @generated from enum value: HASH_ALGORITHM_BLAKE3 = 3;
   */
  BLAKE3 = 3,
}

/**
 * Describes the enum svc.v1.HashAlgorithm.
 */
export const HashAlgorithmSchema: GenEnum<HashAlgorithm> = /*@__PURE__*/
  enumDesc(file_svc_v1_stamp, 0);

/**
 * Lifecycle of a stamp. Status only moves forward:
 *
 *   PENDING --(its Merkle batch is closed and signed)--> CONFIRMED
 *   CONFIRMED --(every requested anchor has confirmed)--> ANCHORED
 *
 * REST and WebSocket spell the same states `pending`, `confirmed`,
 * `anchored`; the WebSocket events stamp_confirmed and stamp_anchored mark the
 * two transitions.
 *
 * @generated from enum svc.v1.StampStatus
 */
export enum StampStatus {
  /**
   * Never set on a stored stamp; the proto3 zero value only.
   *
   * @generated from enum value: STAMP_STATUS_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * Created and recorded; waiting for its Merkle batch to be signed. Proof is
   * not set yet.
   *
   * @generated from enum value: STAMP_STATUS_PENDING = 1;
   */
  PENDING = 1,

  /**
   * Its Merkle batch was closed and signed by the service key: proof carries
   * prime_signature, merkle_root and merkle_proof. Requested anchors may still
   * be pending, or have failed, or be unavailable on this deployment (then the
   * stamp stays CONFIRMED); a stamp that requested no anchors stays CONFIRMED.
   * Worked out from the anchor states whenever the stamp is read.
   *
   * @generated from enum value: STAMP_STATUS_CONFIRMED = 2;
   */
  CONFIRMED = 2,

  /**
   * Every requested anchor has confirmed: proof.witnesses lists them all.
   *
   * @generated from enum value: STAMP_STATUS_ANCHORED = 3;
   */
  ANCHORED = 3,
}

/**
 * Describes the enum svc.v1.StampStatus.
 */
export const StampStatusSchema: GenEnum<StampStatus> = /*@__PURE__*/
  enumDesc(file_svc_v1_stamp, 1);

/**
 * stampd's stamping service. Authentication, content_hash form,
 * input limits and status codes are described in the file header.
 *
 * @generated from service svc.v1.StampService
 */
export const StampService: GenService<{
  /**
   * Creates one stamp for a content hash. Returns it with status
   * STAMP_STATUS_PENDING and no proof; the proof arrives when its Merkle batch
   * is signed (watch with WatchStamps or poll with GetStamp).
   *
   * Errors: INVALID_ARGUMENT (content_hash, algorithm disagreeing with the
   * prefix, description, metadata), UNAUTHENTICATED, RESOURCE_EXHAUSTED.
   *
   * @generated from rpc svc.v1.StampService.CreateStamp
   */
  createStamp: {
    methodKind: "unary";
    input: typeof CreateStampRequestSchema;
    output: typeof CreateStampResponseSchema;
  },
  /**
   * Returns a stamp by id, in its current state.
   *
   * Errors: INVALID_ARGUMENT (stamp_id empty or malformed), NOT_FOUND,
   * UNAUTHENTICATED, RESOURCE_EXHAUSTED.
   *
   * @generated from rpc svc.v1.StampService.GetStamp
   */
  getStamp: {
    methodKind: "unary";
    input: typeof GetStampRequestSchema;
    output: typeof GetStampResponseSchema;
  },
  /**
   * Checks a stamp: its service signature and proof and, when content_hash is
   * supplied, that it equals the stamped hash. The outcome is in verified and
   * message; a mismatch is not an error.
   *
   * Errors: INVALID_ARGUMENT (stamp_id or content_hash malformed), NOT_FOUND,
   * UNAUTHENTICATED, RESOURCE_EXHAUSTED.
   *
   * @generated from rpc svc.v1.StampService.Verify
   */
  verify: {
    methodKind: "unary";
    input: typeof VerifyRequestSchema;
    output: typeof VerifyResponseSchema;
  },
  /**
   * Creates one stamp per item. Items are validated one by one: a failed item
   * is counted in failed_count and does not fail the batch; stamps lists the
   * created stamps only, in request order.
   *
   * The stamps of a batch are signed together: one service signature over
   * the Merkle root of their payloads, each stamp document carrying its path
   * to that root (`signatures.service_batch`, see the REST StampDocument).
   * They are stored in one transaction and acknowledged once it has committed.
   * `batch_progress` events {batchId, processed, total, percentage} go to the
   * WebSocket `batch` channel of the batch's id (see x-batch-id in the file
   * header) while the items are processed (checked, and refused or signed),
   * every 10 % of the items or every 100 items, whichever is fewer (a
   * 1000-item batch: 100, 200, ... 900), then one with processed = total
   * (100 %) once the stamps are stored; every stamp made has its
   * `stamp_created` event like any other. A batch that has started runs to
   * its end even if the caller cancels or the server begins to shut down
   * (stopping halfway would leave a retrying caller with half its stamps made
   * twice).
   *
   * Charged one request and one bulk item per item (see Rate limiting in the
   * file header); the response headers say what is left of the items budget.
   *
   * Errors: INVALID_ARGUMENT (more than MAX_BATCH_ITEMS items, default 1000;
   * nothing is created), UNAUTHENTICATED, RESOURCE_EXHAUSTED (the request
   * budget is spent, the items budget does not cover every item now, or more
   * items than the caller's tier allows in one call).
   *
   * @generated from rpc svc.v1.StampService.BatchStamp
   */
  batchStamp: {
    methodKind: "unary";
    input: typeof BatchStampRequestSchema;
    output: typeof BatchStampResponseSchema;
  },
  /**
   * Server streaming. Sends each stamp that matches the filter when it is
   * created and again whenever its status changes (to CONFIRMED, then to
   * ANCHORED); the filter is evaluated on the stamp at that moment. Stamps
   * created before the call are not replayed: after a reconnect, use
   * GetStamp to fill any gap. Messages arrive in the order the changes
   * happened.
   *
   * The stream runs until the client cancels (CANCELLED), its deadline passes
   * (DEADLINE_EXCEEDED) or the server shuts down (UNAVAILABLE). Changes wait
   * for a slow reader in a per-call buffer of GRPC_WATCH_BUFFER changes
   * (default 10000, configurable); a client that falls further behind is ended
   * with RESOURCE_EXHAUSTED rather than held in server memory. The buffer
   * should hold a whole burst: sealing one Merkle batch confirms up to
   * BATCH_MAX stamps at once.
   *
   * Errors at start: INVALID_ARGUMENT (filter syntax), UNAUTHENTICATED,
   * RESOURCE_EXHAUSTED.
   *
   * @generated from rpc svc.v1.StampService.WatchStamps
   */
  watchStamps: {
    methodKind: "server_streaming";
    input: typeof WatchStampsRequestSchema;
    output: typeof StampSchema;
  },
  /**
   * Bidirectional streaming. Each request creates one stamp and is answered by
   * exactly one response, in request order, with sequence 1, 2, 3, ...
   * The server reads ahead of its responses, at most MAX_BATCH_ITEMS requests
   * (default 1000), and stamps the requests it read while the previous ones
   * were being stamped as one batch (signed and stored together, as in
   * BatchStamp); each response is sent once its stamp is stored. Past that
   * window it stops reading, and HTTP/2 flow control holds the client back:
   * a client that stops reading stops the server.
   *
   * The call ends with OK after the client half-closes and the last response
   * is written. An invalid request ends the call with INVALID_ARGUMENT naming
   * its sequence number; stamps already answered stay created. The call costs
   * one request when it starts and one bulk item per request (see Rate
   * limiting in the file header); the first request past the items budget
   * ends the call with RESOURCE_EXHAUSTED, and the trailers say what is left.
   * With `x-batch-id` metadata its progress goes to the WebSocket `batch`
   * channel (see the file header).
   *
   * Errors: INVALID_ARGUMENT, UNAUTHENTICATED, RESOURCE_EXHAUSTED, CANCELLED,
   * DEADLINE_EXCEEDED, UNAVAILABLE.
   *
   * @generated from rpc svc.v1.StampService.StreamStamps
   */
  streamStamps: {
    methodKind: "bidi_streaming";
    input: typeof StreamStampRequestSchema;
    output: typeof StreamStampResponseSchema;
  },
  /**
   * Lists the stamps of a document hash, newest first, a page at a time, as
   * REST `GET /stamps?hash=` does: public (any caller, with or without a key,
   * sees every matching stamp; see SECURITY.md), served by an index so a page
   * costs the same at any number of stamps. Charged like GetStamp.
   *
   * Errors: INVALID_ARGUMENT (content_hash, page_size, page_token),
   * UNAUTHENTICATED, RESOURCE_EXHAUSTED.
   *
   * @generated from rpc svc.v1.StampService.SearchStamps
   */
  searchStamps: {
    methodKind: "unary";
    input: typeof SearchStampsRequestSchema;
    output: typeof SearchStampsResponseSchema;
  },
  /**
   * Returns a confirmed stamp as a Sigstore bundle v0.3, as REST
   * `GET /stamps/{stamp_id}/sigstore` does (docs/sigstore.md): the stamp is
   * appended to the stamp log when its bundle is first asked for. Verify it
   * with Sigstore's clients, the trusted root of
   * `GET /sigstore/trusted_root.json` and the `sigstore` key of `GET /keys`
   * the bundle's hint names. Its digest is `SHA2_256` for a SHA-256 stamp
   * and for an upload (the SHA-256 of its content, computed with its
   * SHA3-256), `SHA3_256` for a SHA3-256 hash and for uploads stored before
   * that. Charged like GetStamp.
   *
   * Errors: INVALID_ARGUMENT (stamp_id empty or malformed; a BLAKE3 stamp:
   * Sigstore names no BLAKE3 digest), NOT_FOUND, FAILED_PRECONDITION (the
   * stamp is pending: its batch is not sealed yet), UNAUTHENTICATED,
   * RESOURCE_EXHAUSTED, UNAVAILABLE (the store does not answer, or a stamp's
   * first bundle cannot be logged: the SQLite disk is full; with the wait in
   * grpc-retry-pushback-ms, nothing half logged: retry the same call).
   *
   * @generated from rpc svc.v1.StampService.GetSigstoreBundle
   */
  getSigstoreBundle: {
    methodKind: "unary";
    input: typeof GetSigstoreBundleRequestSchema;
    output: typeof GetSigstoreBundleResponseSchema;
  },
  /**
   * Reports whether the service accepts calls. service "" (the whole server)
   * or "svc.v1.StampService": SERVING when healthy, NOT_SERVING while shutting
   * down. The standard grpc.health.v1.Health/Check answers the same.
   *
   * Errors: NOT_FOUND (unknown service name, quoted up to 64 characters),
   * UNAUTHENTICATED (a bad key was presented). Not rate limited.
   *
   * @generated from rpc svc.v1.StampService.HealthCheck
   */
  healthCheck: {
    methodKind: "unary";
    input: typeof HealthCheckRequestSchema;
    output: typeof HealthCheckResponseSchema;
  },
}> = /*@__PURE__*/
  serviceDesc(file_svc_v1_stamp, 0);

