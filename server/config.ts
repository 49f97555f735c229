import { z } from "zod";
import { isAddressOrRange } from "./auth/client-address.js";
import { configErrorLines } from "./config-errors.js";
import { algorithms } from "./ratelimit/algorithm.js";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const port = z.coerce.number().int().min(0).max(65535);
// min(1) rather than positive(): the same for integers, and the bound error messages can show.
const positiveInt = z.coerce.number().int().min(1);
// Vault deadlines: inside the bounds the spec's schemas declare (60 s to 10 years).
const seconds = z.coerce.number().int().min(60).max(315_360_000);
const decimal = z.string().regex(/^\d{1,15}(\.\d{1,18})?$/, "must be a decimal such as 0.50");
const list = z.string().transform((v) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);

/** The S3 mirror's settings that mean nothing without LOG_TILES_S3_BUCKET (those with no default). */
const s3Settings = new Set([
  "LOG_TILES_S3_ENDPOINT",
  "LOG_TILES_S3_ACCESS_KEY_ID",
  "LOG_TILES_S3_SECRET_ACCESS_KEY_FILE",
  "LOG_TILES_S3_SECRET_ACCESS_KEY",
  "LOG_TILES_S3_PREFIX",
]);

/**
 * Every setting the server reads from the environment, with its default. docs/configuration.md
 * mirrors this schema (test/unit/configuration-doc.test.ts holds it to that); `loadConfig` rejects a
 * bad value with one line naming the variable.
 */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    HOST: z.string().min(1).default("0.0.0.0"),
    PORT: port.default(8080),
    GRPC_HOST: z.string().min(1).optional(),
    GRPC_PORT: port.default(50051),
    // gRPC limits (specs/proto/svc/v1/stamp.proto): items of one BatchStamp, stamp events a
    // WatchStamps call may have waiting for a slow reader before it ends with RESOURCE_EXHAUSTED.
    MAX_BATCH_ITEMS: positiveInt.default(1000),
    GRPC_WATCH_BUFFER: positiveInt.default(10_000),
    DATA_DIR: z.string().min(1).default("./data"),
    // Service keys (server/keys/): unset, they are created on first start in DATA_DIR/keys/.
    SERVICE_SIGNING_KEY_FILE: z.string().min(1).optional(),
    AT_REST_KEY_FILE: z.string().min(1).optional(),
    // How often each instance re-reads the deployment's key ring (server/keys/key-ring.ts): the
    // bound on how long a rotation takes to be signed with everywhere (docs/operations.md "Keys").
    KEY_RING_REFRESH_SECONDS: positiveInt.max(3600).default(30),
    AT_REST_KEY: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (256 bits)")
      .optional(),
    // A command printing the at-rest key (a KMS or secret manager's client), run by /bin/sh -c at
    // start (server/keys/service-keys.ts); past its timeout the start stops with one line.
    AT_REST_KEY_COMMAND: z.string().min(1).optional(),
    AT_REST_KEY_COMMAND_TIMEOUT_SECONDS: positiveInt.max(600).default(30),
    DATABASE_URL: z.string().optional(),
    // PostgreSQL's deadline for connecting, waiting for a pooled connection and each query
    // (server/store/postgres/guarded-pool.ts): past it the request answers 503 store_unavailable.
    STORE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
    // The Retry-After (seconds) of a 503 store_unavailable or storage_full answer.
    STORE_RETRY_AFTER_SECONDS: positiveInt.max(3600).default(2),
    // SQLite: commit stamp groups on a thread of their own (server/store/sqlite/stamp-writer.ts);
    // off commits them on the event loop, which costs less CPU where no core is free for it.
    SQLITE_WRITER_THREAD: bool.default(true),
    REDIS_URL: z.string().optional(),
    // Put before every Redis key, so deployments can share one Redis.
    REDIS_PREFIX: z.string().default("stampd:"),
    // Every Redis connection's deadline for connecting, for each command and for a socket that
    // owes a reply (server/redis-client.ts): a stalled Redis costs a request at most this long.
    REDIS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
    // Rate limiting (docs/design.md "Rate limiting").
    RATE_LIMIT_ENABLED: bool.default(true),
    RATE_LIMIT_ALGORITHM: z.enum(algorithms).default("token_bucket"),
    RATE_LIMIT_HEADERS: bool.default(true),
    RATE_LIMIT_CLEANUP_INTERVAL_SECONDS: positiveInt.default(300),
    RATE_LIMIT_MAX_TRACKED_CLIENTS: positiveInt.default(10_000),
    RATE_LIMIT_STALE_SECONDS: positiveInt.default(3600),
    // Redis store: how long what this instance last read of a client may answer the headers of its
    // exempt requests without a round trip (server/ratelimit/recent-states.ts); 0 = always ask.
    RATE_LIMIT_PEEK_FRESHNESS_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    // What the limiter does while Redis does not answer (server/ratelimit/redis-store.ts): `local`
    // limits each client with this instance's memory, `open` lets every request through unlimited.
    RATE_LIMIT_REDIS_FAILURE: z.enum(["local", "open"]).default("local"),
    // Pages people reload (the verification page, the dashboard and its data) have a budget of
    // their own per client, apart from the API's (server/ratelimit/paths.ts); 0 = not limited.
    PAGE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(120),
    SERVICE_BASE_URL: z.url().optional(),
    CORS_ORIGINS: list.default(["*"]),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    // Between readiness turning 503 at SIGTERM and the listeners closing, so load balancers stop
    // sending new requests first (docs/design.md "Operations").
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).default(0),
    // GET /metrics (Prometheus): on the REST port, or alone on METRICS_HOST:METRICS_PORT when set.
    METRICS_ENABLED: bool.default(true),
    METRICS_PORT: port.optional(),
    METRICS_HOST: z.string().min(1).optional(),
    MAX_UPLOAD_BYTES: positiveInt.default(1024 * 1024 * 1024),
    MAX_JSON_BYTES: positiveInt.default(1024 * 1024),
    // Fingerprint documents list every chunk (docs/fingerprint.md, part 8).
    MAX_FINGERPRINT_JSON_BYTES: positiveInt.default(64 * 1024 * 1024),
    // JSON bodies above MAX_JSON_BYTES read at once per client address (server/rest/middleware/large-bodies.ts).
    MAX_LARGE_BODIES_PER_CLIENT: positiveInt.default(1),
    // Decoded bytes of those bodies held at once, all clients together: a parsed fingerprint takes
    // about four times its JSON, so 64 MiB of them fit a 512 MiB container (docs/operations.md).
    MAX_LARGE_BODY_BYTES_TOTAL: positiveInt.default(64 * 1024 * 1024),
    // Multipart forms (server/rest/uploads/uploads.ts): text fields per form and bytes per text field.
    MAX_FORM_FIELDS: positiveInt.default(16),
    MAX_FORM_FIELD_BYTES: positiveInt.default(1024 * 1024),
    // Where an upload waits when a field sent after its file changes how the file is read
    // (server/rest/uploads/upload-spool.ts); unset: DATA_DIR/spool.
    UPLOAD_SPOOL_DIR: z.string().min(1).optional(),
    // The free space an upload's spool must leave on its filesystem (by default the database's):
    // past it the upload answers 503 storage_full instead of filling the disk. 0 = no reserve.
    UPLOAD_SPOOL_MIN_FREE_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(512 * 1024 * 1024),
    // Connection limits against slow and greedy clients (docs/design.md "Limits"): the REST and
    // WebSocket listener (server/rest/http-server.ts), the gRPC listener (server/grpc/server.ts).
    MAX_HEADER_BYTES: positiveInt.min(1024).default(16 * 1024),
    MAX_CONNECTIONS: positiveInt.default(10_000),
    // Of those, one client address (IPv6: its IPV6_PREFIX_LENGTH network) may hold this many;
    // trusted proxies are not capped (server/ratelimit/connection-cap.ts).
    MAX_CONNECTIONS_PER_CLIENT: positiveInt.default(100),
    HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(30_000),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(3_600_000),
    HTTP_IDLE_TIMEOUT_MS: positiveInt.default(60_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(5000),
    GRPC_MAX_CONCURRENT_STREAMS: positiveInt.default(100),
    GRPC_MAX_MESSAGE_BYTES: positiveInt.default(4 * 1024 * 1024),
    GRPC_IDLE_TIMEOUT_MS: positiveInt.default(300_000),
    // Calls one client address has open at once over all its connections (server/grpc/open-calls.ts),
    // and how long a call may send nothing before its request ends: silent calls cost memory.
    GRPC_MAX_CALLS_PER_CLIENT: positiveInt.default(100),
    GRPC_CALL_IDLE_TIMEOUT_MS: positiveInt.default(60_000),
    // WebSocket (specs/asyncapi.yaml, "Limits and keep-alive").
    WS_PING_INTERVAL_MS: positiveInt.default(30_000),
    WS_MAX_PAYLOAD: positiveInt.default(64 * 1024),
    WS_MAX_SUBSCRIPTIONS: positiveInt.default(50),
    WS_MAX_BUFFERED_BYTES: positiveInt.default(1024 * 1024),
    // Vault limits. The spec's schemas carry the default bounds, so a setting can narrow them, never widen.
    MAX_BATCH_HEARTBEAT: positiveInt.max(100).default(100),
    MAX_PAGE_SIZE: positiveInt.max(500).default(500),
    VAULT_MIN_DEADLINE_SECONDS: seconds.default(60),
    VAULT_MAX_DEADLINE_SECONDS: seconds.default(315_360_000),
    VAULT_WARNING_LEAD_SECONDS: z.coerce.number().int().min(0).default(86_400),
    VAULT_RETENTION_SECONDS: positiveInt.default(2_592_000),
    VAULT_SCHEDULER_INTERVAL_MS: positiveInt.default(1000),
    // Vault fees: decimal text, never floats (server/vault/fees/decimal.ts computes with BigInt).
    VAULT_CREATE_FEE: decimal.default("0.00"),
    VAULT_HEARTBEAT_FEE: decimal.default("0.50"),
    VAULT_BATCH_DISCOUNT: z
      .string()
      .regex(/^(0(\.\d{1,18})?|1(\.0{1,18})?)$/, "must be a decimal fraction between 0 and 1")
      .default("0.10"),
    VAULT_FEE_CURRENCY: z
      .string()
      .regex(/^[A-Z0-9]{2,12}$/, "must be 2-12 of A-Z, 0-9")
      .default("USDC"),
    VAULT_FEE_RECIPIENT: z.string().min(1).max(128).optional(),
    FEE_ISSUER_PUBLIC_KEYS: list
      .refine(
        (keys) => keys.every((k) => /^ed25519:[0-9a-f]{64}$/.test(k)),
        "each key must be ed25519:<64 hex>",
      )
      .optional(),
    FEE_RECEIPT_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).default(300),
    FEE_RECEIPT_MAX_AGE_SECONDS: positiveInt.default(2_592_000),
    VALIDATE_RESPONSES: bool.optional(),
    // Whose X-Forwarded-For / X-Real-IP are believed. `none` (the default): nobody's, since any
    // local process (a sidecar, a tunnel) could otherwise choose its own client address.
    TRUSTED_PROXIES: list
      .transform((entries) => (entries.length === 1 && entries[0] === "none" ? [] : entries))
      .refine((entries) => entries.every(isAddressOrRange), "each entry must be an IP address or a CIDR")
      .default([]),
    IPV6_PREFIX_LENGTH: z.coerce.number().int().min(1).max(128).default(56),
    AUTH_CACHE_MS: z.coerce.number().int().min(0).default(10_000),
    // Proofs and anchoring (docs/design.md "Proofs and anchoring").
    BATCH_INTERVAL_MS: positiveInt.default(1000),
    BATCH_MAX: positiveInt.max(100_000).default(10_000),
    LOG_ORIGIN: z
      .string()
      .regex(
        /^[^\s+]+$/,
        "must be non-empty, without spaces or '+' (a schema-less URL such as example.com/log)",
      )
      .optional(),
    // The log as C2SP tiles (docs/log-tiles.md), mirrored into this folder for a static server.
    LOG_TILES_DIR: z.string().min(1).optional(),
    // ... and/or into an S3-compatible bucket (server/log/s3-tile-mirror.ts); the bucket turns it on.
    LOG_TILES_S3_BUCKET: z.string().min(1).optional(),
    // Unset: AWS's endpoint of the region.
    LOG_TILES_S3_ENDPOINT: z.url().optional(),
    LOG_TILES_S3_REGION: z.string().min(1).default("us-east-1"),
    LOG_TILES_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    // The secret from a file (as the service's keys are), or given directly: one of the two.
    LOG_TILES_S3_SECRET_ACCESS_KEY_FILE: z.string().min(1).optional(),
    LOG_TILES_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    LOG_TILES_S3_PREFIX: z
      .string()
      .regex(/^([^/]+\/)*$/, "must be empty or end with '/' without starting with one, such as stampd/log/")
      .optional(),
    LOG_TILES_S3_PATH_STYLE: bool.default(false),
    TSA_URL: z.url().optional(),
    TSA_CA_FILE: z.string().min(1).optional(),
    // How long a Sigstore bundle request waits for TSA_URL's token before it answers without it.
    TSA_BUNDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
    OTS_CALENDAR_URLS: list.pipe(z.array(z.url())).optional(),
    ETHEREUM_RPC_URL: z.url().optional(),
    ETHEREUM_FROM: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte address")
      .optional(),
  })
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, {
    // Node refuses a headers timeout above the request timeout, which includes the headers.
    path: ["HTTP_HEADERS_TIMEOUT_MS"],
    message: "must not exceed HTTP_REQUEST_TIMEOUT_MS",
  })
  .refine((c) => c.MAX_LARGE_BODY_BYTES_TOTAL >= c.MAX_FINGERPRINT_JSON_BYTES, {
    // A body larger than the whole allowance could never be read: every such request would be a 503.
    path: ["MAX_LARGE_BODY_BYTES_TOTAL"],
    message: "must be at least MAX_FINGERPRINT_JSON_BYTES",
  })
  .refine((c) => c.LOG_TILES_S3_BUCKET || !Object.entries(c).some(([k, v]) => s3Settings.has(k) && v), {
    path: ["LOG_TILES_S3_BUCKET"],
    message: "must be set when other LOG_TILES_S3_ settings are (the bucket turns the S3 mirror on)",
  })
  .refine((c) => !c.LOG_TILES_S3_BUCKET || c.LOG_TILES_S3_ACCESS_KEY_ID, {
    path: ["LOG_TILES_S3_ACCESS_KEY_ID"],
    message: "must be set with LOG_TILES_S3_BUCKET",
  })
  .refine(
    (c) =>
      !c.LOG_TILES_S3_BUCKET || !c.LOG_TILES_S3_SECRET_ACCESS_KEY_FILE !== !c.LOG_TILES_S3_SECRET_ACCESS_KEY,
    {
      path: ["LOG_TILES_S3_SECRET_ACCESS_KEY_FILE"],
      message: "with LOG_TILES_S3_BUCKET, set it or LOG_TILES_S3_SECRET_ACCESS_KEY (one of the two)",
    },
  )
  .refine((c) => !c.METRICS_PORT || (c.METRICS_PORT !== c.PORT && c.METRICS_PORT !== c.GRPC_PORT), {
    path: ["METRICS_PORT"],
    message: "must differ from PORT and GRPC_PORT (it is a listener of its own)",
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError whose message is one line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  throw new ConfigError(configErrorLines(configSchema.shape, parsed.error.issues).join("\n"));
}

/**
 * The checkpoint origin and log key name: `LOG_ORIGIN`, else `<host name of the public base URL>/log`
 * (no port: the origin names the log and must not change when the listener moves).
 */
export function logOrigin(config: Config): string {
  return config.LOG_ORIGIN ?? `${new URL(publicBaseUrl(config)).hostname}/log`;
}

/** The base URL third parties see; defaults to the local listener. */
export function publicBaseUrl(config: Config): string {
  if (config.SERVICE_BASE_URL) return config.SERVICE_BASE_URL.replace(/\/+$/, "");
  const host = config.HOST === "0.0.0.0" || config.HOST === "::" ? "localhost" : config.HOST;
  return `http://${host}:${config.PORT}`;
}
