import type { MessageInitShape } from "@bufbuild/protobuf";
import { type CallOptions, type Client, createClient, type Transport } from "@connectrpc/connect";
import {
  type BatchStampResponse,
  type CreateStampRequestSchema,
  type CreateStampResponse,
  type GetStampResponse,
  type HealthCheckResponse,
  type SearchStampsRequestSchema,
  type SearchStampsResponse,
  type Stamp,
  StampService,
  type StreamStampRequestSchema,
  type StreamStampResponse,
  type VerifyRequestSchema,
  type VerifyResponse,
} from "../../../gen/proto/svc/v1/stamp_pb.js";
import type { AcceptUndefined } from "../internal/accept-undefined.js";
import { APIError, StampdError } from "../internal/errors.js";
import { DEFAULT_MAX_RETRIES, grpcRetryDelay, type RetryListener, sleep } from "../internal/retry.js";
import { grpcError } from "./errors.js";
import { withHeaders } from "./headers.js";
import { nodeGrpcTransport } from "./node-transport.js";

export interface GrpcClientOptions {
  /** The gRPC address, e.g. `http://localhost:50051` (Node: HTTP/2 cleartext or TLS). */
  baseUrl?: string | undefined;
  /** Sent as `authorization: Bearer <key>` metadata on every call. */
  apiKey?: string | undefined;
  /** A Connect transport to use instead (e.g. `createGrpcWebTransport` from @connectrpc/connect-web in browsers). */
  transport?: Transport | undefined;
  /** Retries of a unary call refused with pushback or UNAVAILABLE (default 2). */
  maxRetries?: number | undefined;
  /** Called before each wait between two attempts (see `ClientOptions.onRetry`). */
  onRetry?: RetryListener | undefined;
}

export type CreateStampInput = AcceptUndefined<MessageInitShape<typeof CreateStampRequestSchema>>;
export type StreamStampInput = AcceptUndefined<MessageInitShape<typeof StreamStampRequestSchema>>;
export type VerifyInput = AcceptUndefined<MessageInitShape<typeof VerifyRequestSchema>>;
export type SearchStampsInput = AcceptUndefined<MessageInitShape<typeof SearchStampsRequestSchema>>;

/**
 * svc.v1.StampService through Connect: unary calls as promises, streams as async iterables. Every
 * failure is an SDK error (`grpcError`: `RateLimitError`, `NotFoundError`, …); a unary call refused
 * with RESOURCE_EXHAUSTED and a pushback, or UNAVAILABLE, is retried after the wait the server
 * asks for in `grpc-retry-pushback-ms` (as REST waits out `Retry-After`), `maxRetries` times.
 * Streams are not retried: what a stream did before it failed is the caller's to resume. A
 * retried CreateStamp or BatchStamp makes its stamps once: a refusal makes nothing, and so does
 * UNAVAILABLE from the server; only a connection lost after the server stored them could make
 * them twice.
 */
export class StampdGrpc {
  /** The generated Connect client, for anything the helpers below do not cover (errors unmapped). */
  readonly raw: Client<typeof StampService>;
  private readonly maxRetries: number;
  private readonly onRetry: RetryListener | undefined;

  constructor(options: GrpcClientOptions) {
    const base = options.transport ?? nodeGrpcTransport(requireBaseUrl(options.baseUrl));
    const transport = options.apiKey
      ? withHeaders(base, { authorization: `Bearer ${options.apiKey}` })
      : base;
    this.raw = createClient(StampService, transport);
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.onRetry = options.onRetry;
  }

  /**
   * CreateStamp: one stamp for a content hash `<algorithm>:<hex>`; it starts PENDING.
   *
   * @example
   * const { stamp } = await client.grpc.createStamp({ contentHash: "sha256:" + digest });
   */
  createStamp(input: CreateStampInput, options?: CallOptions): Promise<CreateStampResponse> {
    return this.unary(() => this.raw.createStamp(input, options), options);
  }

  /**
   * GetStamp: a stamp by id, in its current state.
   *
   * @example
   * const { stamp } = await client.grpc.getStamp(stampId);
   */
  getStamp(stampId: string, options?: CallOptions): Promise<GetStampResponse> {
    return this.unary(() => this.raw.getStamp({ stampId }, options), options);
  }

  /**
   * Verify: checks a stamp and, with `contentHash`, that it matches; a mismatch is not an error.
   *
   * @example
   * const { verified } = await client.grpc.verify({ stampId, contentHash: "sha256:" + digest });
   */
  verify(input: VerifyInput, options?: CallOptions): Promise<VerifyResponse> {
    return this.unary(() => this.raw.verify(input, options), options);
  }

  /**
   * BatchStamp: one stamp per item; failed items are counted, not thrown.
   *
   * @example
   * const { stamps, successCount } = await client.grpc.batchStamp(digests.map((d) => ({ contentHash: `sha256:${d}` })));
   */
  batchStamp(items: CreateStampInput[], options?: CallOptions): Promise<BatchStampResponse> {
    return this.unary(() => this.raw.batchStamp({ items }, options), options);
  }

  /**
   * WatchStamps: new stamps and status changes as they happen, until `options.signal` aborts.
   *
   * @example
   * for await (const stamp of grpc.watch("", { signal })) console.log(stamp.id, stamp.status);
   */
  watch(filter = "", options?: CallOptions): AsyncIterable<Stamp> {
    return sdkErrors(this.raw.watchStamps({ filter }, options));
  }

  /**
   * StreamStamps: stamps each request as it is sent; one response per request, in order.
   *
   * @example
   * for await (const { stamp, sequence } of grpc.stream(hashes.map((h) => ({ contentHash: h })))) ...
   */
  stream(
    requests: Iterable<StreamStampInput> | AsyncIterable<StreamStampInput>,
    options?: CallOptions,
  ): AsyncIterable<StreamStampResponse> {
    return sdkErrors(this.raw.streamStamps(toAsync(requests), options));
  }

  /**
   * SearchStamps: one page of the stamps of a content hash `<algorithm>:<hex>`, newest first
   * (`pageSize` 0 means 50, at most 500); `nextPageToken` is empty on the last page. Public, like
   * REST `GET /stamps?hash=`; a hash never stamped is an empty page.
   *
   * @example
   * let pageToken = "";
   * do {
   *   const page = await client.grpc.searchStamps({ contentHash: `sha256:${digest}`, pageToken });
   *   for (const match of page.stamps) console.log(match.id, match.timestamp);
   *   pageToken = page.nextPageToken;
   * } while (pageToken);
   */
  searchStamps(input: SearchStampsInput, options?: CallOptions): Promise<SearchStampsResponse> {
    return this.unary(() => this.raw.searchStamps(input, options), options);
  }

  /**
   * HealthCheck: SERVING when the service accepts calls.
   *
   * @example
   * const { status } = await client.grpc.healthCheck();
   */
  healthCheck(service = "svc.v1.StampService", options?: CallOptions): Promise<HealthCheckResponse> {
    return this.unary(() => this.raw.healthCheck({ service }, options), options);
  }

  /** Runs a unary call, retrying what a wait may let through (see the class), errors as SDK errors. */
  private async unary<T>(call: () => Promise<T>, options: CallOptions | undefined): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await call();
      } catch (err) {
        const error = grpcError(err);
        if (!(error instanceof APIError) || retry >= this.maxRetries) throw error;
        const delayMs = grpcRetryDelay(retry, error);
        if (delayMs === undefined) throw error;
        this.onRetry?.({ error, delayMs, retry });
        await sleep(delayMs, options?.signal);
      }
    }
  }
}

/**
 * A gRPC client of svc.v1.StampService.
 *
 * @example
 * const grpc = createGrpcClient({ baseUrl: "http://localhost:50051", apiKey });
 */
export function createGrpcClient(options: GrpcClientOptions): StampdGrpc {
  return new StampdGrpc(options);
}

function requireBaseUrl(baseUrl: string | undefined): string {
  if (!baseUrl) throw new StampdError("gRPC needs a baseUrl (grpcUrl) or a transport");
  return baseUrl;
}

async function* toAsync<T>(items: Iterable<T> | AsyncIterable<T>): AsyncIterable<T> {
  yield* items;
}

/** A stream whose failure is an SDK error (`grpcError`). */
async function* sdkErrors<T>(stream: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* stream;
  } catch (err) {
    throw grpcError(err);
  }
}
