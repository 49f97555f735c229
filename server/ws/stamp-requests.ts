import { formatContentHash } from "../../core/content-hash.js";
import type {
  StampCreatedData,
  StampRequestData,
  VerificationResultData,
  VerifyRequestData,
} from "../../gen/asyncapi/index.js";
import type { Principal } from "../auth/principal.js";
import { contentHashArgument } from "../hashing/content-hash-argument.js";
import type { RateLimiter } from "../ratelimit/limiter.js";
import { refusalMessage } from "../ratelimit/rate-limited.js";
import { metadataAsText } from "../stamps/annotations.js";
import type { StoredStamp } from "../stamps/stamp-repository.js";
import type { StampService } from "../stamps/stamp-service.js";
import { WsErrorReply } from "./ws-error.js";

/**
 * The `stamp` and `verify` messages: the stamps domain, charged to the connection's rate-limit
 * budget like `POST /stamps` and `POST /verify` (else the WebSocket would bypass the limits).
 */
export class StampRequests {
  constructor(
    private readonly stamps: StampService,
    private readonly limiter: RateLimiter | undefined,
  ) {}

  /**
   * An unsigned stamp with gRPC CreateStamp's defaults; the algorithm is the hash's prefix.
   * Metadata values that are not strings are recorded as their JSON text (metadataAsText).
   */
  async stamp(principal: Principal, { contentHash, metadata }: StampRequestData): Promise<StampCreatedData> {
    await this.charge(principal, "/stamps");
    const view = await this.stamps.createFromHash({
      accountId: principal.accountId,
      contentHash: contentHashArgument(contentHash, "contentHash"),
      metadata: metadata && metadataAsText(metadata),
    });
    return createdData(view.stamp);
  }

  /** `verified`: the hash is the stamp's and its signatures hold; `timestamp` is the stamp's time. */
  async verify(
    principal: Principal,
    { stampId, contentHash }: VerifyRequestData,
  ): Promise<VerificationResultData> {
    await this.charge(principal, "/verify");
    const { stamp } = await this.stamps.get(stampId);
    const result = await this.stamps.verifyById(stampId, {
      contentHash: contentHashArgument(contentHash, "contentHash"),
    });
    return {
      stampId,
      contentHash,
      verified: result.is_valid && result.content_hash_valid === true,
      timestamp: stamp.document.created_at,
    };
  }

  private async charge(principal: Principal, path: string): Promise<void> {
    const decision = await this.limiter?.meter(principal, { path });
    if (decision && !decision.allowed) {
      throw new WsErrorReply("rate_limited", refusalMessage(decision), undefined, decision.resetSeconds);
    }
  }
}

/** The same data as the stamps domain's `stamp_created` event, which this reply stands for. */
function createdData(stamp: StoredStamp): StampCreatedData {
  const { document } = stamp;
  return {
    id: stamp.id,
    contentHash: formatContentHash({ algorithm: document.document.algorithm, hex: document.document.hash }),
    timestamp: document.created_at,
    metadata: document.metadata ?? {},
  };
}
