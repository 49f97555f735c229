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
import { StampdError } from "../internal/errors.js";
import { withHeaders } from "./headers.js";
import { nodeGrpcTransport } from "./node-transport.js";

export interface GrpcClientOptions {
  /** The gRPC address, e.g. `http://localhost:50051` (Node: HTTP/2 cleartext or TLS). */
  baseUrl?: string;
  /** Sent as `authorization: Bearer <key>` metadata on every call. */
  apiKey?: string;
  /** A Connect transport to use instead (e.g. `createGrpcWebTransport` from @connectrpc/connect-web in browsers). */
  transport?: Transport;
}

export type CreateStampInput = MessageInitShape<typeof CreateStampRequestSchema>;
export type StreamStampInput = MessageInitShape<typeof StreamStampRequestSchema>;
export type VerifyInput = MessageInitShape<typeof VerifyRequestSchema>;
export type SearchStampsInput = MessageInitShape<typeof SearchStampsRequestSchema>;

/** svc.v1.StampService through Connect: unary calls as promises, streams as async iterables. */
export class StampdGrpc {
  /** The generated Connect client, for anything the helpers below do not cover. */
  readonly raw: Client<typeof StampService>;

  constructor(options: GrpcClientOptions) {
    const base = options.transport ?? nodeGrpcTransport(requireBaseUrl(options.baseUrl));
    const transport = options.apiKey
      ? withHeaders(base, { authorization: `Bearer ${options.apiKey}` })
      : base;
    this.raw = createClient(StampService, transport);
  }

  /**
   * CreateStamp: one stamp for a content hash `<algorithm>:<hex>`; it starts PENDING.
   *
   * @example
   * const { stamp } = await client.grpc.createStamp({ contentHash: "sha256:" + digest });
   */
  createStamp(input: CreateStampInput, options?: CallOptions): Promise<CreateStampResponse> {
    return this.raw.createStamp(input, options);
  }

  /**
   * GetStamp: a stamp by id, in its current state.
   *
   * @example
   * const { stamp } = await client.grpc.getStamp(stampId);
   */
  getStamp(stampId: string, options?: CallOptions): Promise<GetStampResponse> {
    return this.raw.getStamp({ stampId }, options);
  }

  /**
   * Verify: checks a stamp and, with `contentHash`, that it matches; a mismatch is not an error.
   *
   * @example
   * const { verified } = await client.grpc.verify({ stampId, contentHash: "sha256:" + digest });
   */
  verify(input: VerifyInput, options?: CallOptions): Promise<VerifyResponse> {
    return this.raw.verify(input, options);
  }

  /**
   * BatchStamp: one stamp per item; failed items are counted, not thrown.
   *
   * @example
   * const { stamps, successCount } = await client.grpc.batchStamp(digests.map((d) => ({ contentHash: `sha256:${d}` })));
   */
  batchStamp(items: CreateStampInput[], options?: CallOptions): Promise<BatchStampResponse> {
    return this.raw.batchStamp({ items }, options);
  }

  /**
   * WatchStamps: new stamps and status changes as they happen, until `options.signal` aborts.
   *
   * @example
   * for await (const stamp of grpc.watch("", { signal })) console.log(stamp.id, stamp.status);
   */
  watch(filter = "", options?: CallOptions): AsyncIterable<Stamp> {
    return this.raw.watchStamps({ filter }, options);
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
    return this.raw.streamStamps(toAsync(requests), options);
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
    return this.raw.searchStamps(input, options);
  }

  /**
   * HealthCheck: SERVING when the service accepts calls.
   *
   * @example
   * const { status } = await client.grpc.healthCheck();
   */
  healthCheck(service = "svc.v1.StampService", options?: CallOptions): Promise<HealthCheckResponse> {
    return this.raw.healthCheck({ service }, options);
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
