import { create } from "@bufbuild/protobuf";
import {
  ConnectError,
  createServiceImplSpec,
  type HandlerContext,
  type ServiceImpl,
} from "@connectrpc/connect";
import {
  type BatchStampRequest,
  type BatchStampResponse,
  BatchStampResponseSchema,
  type CreateStampRequest,
  type CreateStampResponse,
  CreateStampResponseSchema,
  file_svc_v1_stamp,
  type GetSigstoreBundleRequest,
  type GetSigstoreBundleResponse,
  GetSigstoreBundleResponseSchema,
  type GetStampRequest,
  type GetStampResponse,
  GetStampResponseSchema,
  type HealthCheckRequest,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  type SearchStampsRequest,
  type SearchStampsResponse,
  type Stamp,
  StampService,
  HealthCheckResponse_ServingStatus as Status,
  type StreamStampRequest,
  type StreamStampResponse,
  StreamStampResponseSchema,
  type VerifyRequest,
  type VerifyResponse,
  type WatchStampsRequest,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import type { AppContext } from "../context.js";
import { invalid, ServiceError } from "../errors.js";
import type { EventBus } from "../events/bus.js";
import { contentHashArgument } from "../hashing/content-hash-argument.js";
import type { Readiness } from "../health/readiness.js";
import type { SigstoreService } from "../sigstore/sigstore-service.js";
import type { BatchProgress } from "../stamps/batch-progress.js";
import type { StampSearch } from "../stamps/stamp-search.js";
import type { StampService as Stamps } from "../stamps/stamp-service.js";
import type { StampView } from "../stamps/stamp-view.js";
import { newStampingBatchId, type StampingBatch, stampBatch } from "./batch-stamping.js";
import { CallLimits } from "./call-limits.js";
import { principalOf } from "./context-keys.js";
import { healthServiceNames, unknownService } from "./health-service.js";
import { readAhead } from "./read-ahead.js";
import { requireBatchId, requireStampId, toHashStampRequest } from "./requests.js";
import { toHashSearch, toSearchStampsResponse } from "./search-stamps.js";
import { toStampMessage } from "./stamp-message.js";
import { watchedStampIds } from "./stamp-watch.js";
import { stampGroup } from "./stream-stamping.js";
import { verifyResponse } from "./verify-outcome.js";
import { factsOf, parseWatchFilter } from "./watch-filter.js";

/** Requests between two `batch_progress` events of a StreamStamps call (its total is not known). */
const STREAM_PROGRESS_STEP = 100;

export interface StampHandlersDeps {
  stamps: Stamps;
  /** Search by document hash (public: the same answer for every caller). */
  search: StampSearch;
  events: EventBus;
  limits: CallLimits;
  readiness: Readiness;
  /** `MAX_BATCH_ITEMS`: more items in one BatchStamp is INVALID_ARGUMENT. */
  maxBatchItems: number;
  /** `GRPC_WATCH_BUFFER`: stamp events a WatchStamps reader may fall behind. */
  watchBuffer: number;
  /** Stamps as Sigstore bundles (docs/sigstore.md); absent: GetSigstoreBundle is UNIMPLEMENTED. */
  sigstore?: Pick<SigstoreService, "bundle">;
}

/**
 * svc.v1.StampService: a thin translation onto the stamps domain that REST and WebSocket use, so a
 * stamp is the same stamp whichever transport made it. The auth interceptor has put the caller in
 * the context; every handler charges the caller's rate limit before doing the work.
 */
export class StampHandlers implements ServiceImpl<typeof StampService> {
  constructor(private readonly deps: StampHandlersDeps) {}

  async createStamp(req: CreateStampRequest, ctx: HandlerContext): Promise<CreateStampResponse> {
    const principal = principalOf(ctx);
    await this.deps.limits.charge(principal, "stamp");
    const view = await this.deps.stamps.createFromHash(toHashStampRequest(req, principal.accountId));
    return create(CreateStampResponseSchema, { stamp: toStampMessage(view) });
  }

  async getStamp(req: GetStampRequest, ctx: HandlerContext): Promise<GetStampResponse> {
    await this.deps.limits.charge(principalOf(ctx), "stamp");
    const view = await this.deps.stamps.get(requireStampId(req.stampId));
    return create(GetStampResponseSchema, { stamp: toStampMessage(view) });
  }

  async verify(req: VerifyRequest, ctx: HandlerContext): Promise<VerifyResponse> {
    await this.deps.limits.charge(principalOf(ctx), "verify");
    const id = requireStampId(req.stampId);
    const supplied = req.contentHash === "" ? undefined : contentHashArgument(req.contentHash);
    const { view, result } = await this.deps.stamps.inspect(id, { contentHash: supplied });
    return verifyResponse(view.stamp, result, supplied);
  }

  /** Charged like GetStamp: one read of `/stamps`. */
  async getSigstoreBundle(
    req: GetSigstoreBundleRequest,
    ctx: HandlerContext,
  ): Promise<GetSigstoreBundleResponse> {
    await this.deps.limits.charge(principalOf(ctx), "stamp");
    const stampId = requireStampId(req.stampId);
    if (!this.deps.sigstore)
      throw new ServiceError("not_implemented", "Sigstore bundles are not served here");
    const bundle = await this.deps.sigstore.bundle(stampId);
    return create(GetSigstoreBundleResponseSchema, { bundleJson: JSON.stringify(bundle) });
  }

  async searchStamps(req: SearchStampsRequest, ctx: HandlerContext): Promise<SearchStampsResponse> {
    await this.deps.limits.charge(principalOf(ctx), "stamp");
    return toSearchStampsResponse(await this.deps.search.byHash(toHashSearch(req)));
  }

  /**
   * Charged one request, and one bulk item per item in a single all-or-nothing charge, whose
   * figures the response headers carry (stamp.proto, Rate limiting).
   */
  async batchStamp(req: BatchStampRequest, ctx: HandlerContext): Promise<BatchStampResponse> {
    const { maxBatchItems, limits } = this.deps;
    if (req.items.length > maxBatchItems) {
      throw invalid(`items: at most ${maxBatchItems} per BatchStamp, got ${req.items.length}`);
    }
    const batchId = requireBatchId(ctx.requestHeader.get("x-batch-id") ?? newStampingBatchId());
    const principal = principalOf(ctx);
    // Before anything is charged: no wait lets a batch larger than the budget through.
    limits.checkItemsFit(principal, req.items.length);
    await limits.charge(principal, "stamp");
    setAll(ctx.responseHeader, await limits.chargeItems(principal, req.items.length));
    ctx.responseHeader.set("x-batch-id", batchId);
    const batch: StampingBatch = {
      id: batchId,
      accountId: principal.accountId,
      items: req.items.map((item) => refusalOr(() => toHashStampRequest(item, principal.accountId))),
    };
    const results = await stampBatch(this.deps.stamps, batch);
    const created = results.filter((r): r is StampView => !(r instanceof ServiceError));
    return create(BatchStampResponseSchema, {
      stamps: created.map(toStampMessage),
      successCount: created.length,
      failedCount: results.length - created.length,
    });
  }

  async *watchStamps(req: WatchStampsRequest, ctx: HandlerContext): AsyncGenerator<Stamp> {
    const filter = parseWatchFilter(req.filter);
    await this.deps.limits.charge(principalOf(ctx), "watch");
    const options = { filter, capacity: this.deps.watchBuffer, signal: ctx.signal };
    for await (const id of watchedStampIds(this.deps.events, options)) {
      // Read now, so a status change is sent with the state it led to (and filtered on it).
      const view = await this.deps.stamps.get(id);
      if (filter(factsOf(view.stamp))) yield toStampMessage(view);
    }
  }

  /**
   * One response per request, in order. Requests are read ahead of the responses, at most
   * MAX_BATCH_ITEMS of them, and those read while the previous group was being stamped are stamped
   * together (stream-stamping.ts): one signature and one commit for the group instead of one each.
   * The read-ahead stops when the window is full, and responses are yielded to a writer that waits
   * for HTTP/2 flow control: a client that stops reading stops the call, and at most the window
   * piles up on the server.
   */
  async *streamStamps(
    requests: AsyncIterable<StreamStampRequest>,
    ctx: HandlerContext,
  ): AsyncGenerator<StreamStampResponse> {
    const principal = principalOf(ctx);
    await this.deps.limits.charge(principal, "stamp");
    const progress = this.streamProgress(ctx, principal.accountId);
    let sequence = 0;
    for await (const inputs of readAhead(requests, this.deps.maxBatchItems)) {
      progress?.grow(inputs.length);
      const group = await stampGroup(this.deps, principal, inputs, sequence + 1, progress);
      setAll(ctx.responseTrailer, group.items);
      for (const view of group.views) {
        yield create(StreamStampResponseSchema, { stamp: toStampMessage(view), sequence: ++sequence });
      }
      if (group.failure) throw withoutStaleTrailers(group.failure, ctx.responseTrailer);
    }
    progress?.finish();
  }

  /**
   * A StreamStamps call given `x-batch-id` reports its progress under that id (echoed in the
   * response header); its total, unknown in advance, is the requests received so far, so events
   * come every 100 requests and the last (100 %) when the call ends OK.
   */
  private streamProgress(ctx: HandlerContext, accountId: string | null): BatchProgress | undefined {
    const given = ctx.requestHeader.get("x-batch-id");
    if (given === null) return undefined;
    const id = requireBatchId(given);
    ctx.responseHeader.set("x-batch-id", id);
    return this.deps.stamps.trackBatch({ id, accountId }, 0, STREAM_PROGRESS_STEP);
  }

  healthCheck(req: HealthCheckRequest): HealthCheckResponse {
    return stampHealthCheck(this.deps.readiness, req);
  }
}

/** StampService/HealthCheck, also answered while the service starts (grpc/startup.ts). */
export function stampHealthCheck(readiness: Readiness, req: HealthCheckRequest): HealthCheckResponse {
  if (!healthServiceNames.has(req.service)) {
    throw unknownService(req.service);
  }
  const status = readiness.ready ? Status.SERVING : Status.NOT_SERVING;
  return create(HealthCheckResponseSchema, { status });
}

/** svc.v1.StampService over the application's stamps domain, limiter and event bus. */
export function grpcStampService(
  ctx: AppContext,
  stamps: Stamps,
  search: StampSearch,
  readiness: Readiness,
  sigstore?: Pick<SigstoreService, "bundle">,
) {
  const handlers = new StampHandlers({
    ...(sigstore && { sigstore }),
    stamps,
    search,
    events: ctx.events,
    limits: new CallLimits(ctx.rateLimiter),
    readiness,
    maxBatchItems: ctx.config.MAX_BATCH_ITEMS,
    watchBuffer: ctx.config.GRPC_WATCH_BUFFER,
  });
  return {
    file: file_svc_v1_stamp,
    spec: createServiceImplSpec<typeof StampService>(StampService, handlers),
  };
}

function setAll(headers: Headers, values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) headers.set(name, value);
}

/**
 * A refusal that carries the items budget's figures replaces those set earlier in the call: the
 * trailers would otherwise hold each twice (Connect appends an error's metadata to them).
 */
function withoutStaleTrailers(failure: unknown, trailers: Headers): unknown {
  if (failure instanceof ConnectError) {
    failure.metadata.forEach((_, name) => {
      trailers.delete(name);
    });
  }
  return failure;
}

/** A batch item's refusal is its result, not the batch's failure. */
function refusalOr<T>(build: () => T): T | ServiceError {
  try {
    return build();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}
