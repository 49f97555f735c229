import { ConnectError } from "@connectrpc/connect";
import type { Principal } from "../auth/principal.js";
import { ServiceError } from "../errors.js";
import type { BatchProgress } from "../stamps/batch-progress.js";
import type { HashStampRequest, StampService } from "../stamps/stamp-service.js";
import type { StampView } from "../stamps/stamp-view.js";
import type { CallLimits, ItemsMetadata } from "./call-limits.js";
import { type StampInput, toHashStampRequest } from "./requests.js";

export interface StreamDeps {
  stamps: StampService;
  limits: CallLimits;
}

/** What a group of StreamStamps requests came to: the stamps made, in order, and what ended the call. */
export interface StreamedGroup {
  views: StampView[];
  /** The first request's refusal (named by its sequence number), or null when every one was stamped. */
  failure: unknown;
  /** What is left of the caller's bulk items budget after the group's charges (the call's trailers). */
  items: ItemsMetadata;
}

/**
 * Stamps a group of StreamStamps requests (those read while the previous group was being stamped)
 * as one batch: one charge, one service signature over their Merkle root, one transaction. It
 * keeps the stream's per-request rules: requests are charged and checked in order, and the first
 * one refused (rate limit, bad input) ends the call after the stamps of the requests before it;
 * nothing after it is made. A group's requests are bulk items (stamp.proto, Rate limiting), charged
 * up to that request in as few charges as the caller's tier allows, one at a time only when the
 * budget does not hold a whole charge.
 */
export async function stampGroup(
  deps: StreamDeps,
  principal: Principal,
  inputs: readonly StampInput[],
  firstSequence: number,
  progress?: BatchProgress,
): Promise<StreamedGroup> {
  const requests: HashStampRequest[] = [];
  let failure: { index: number; error: unknown } | null = null;
  for (const [index, input] of inputs.entries()) {
    try {
      requests.push(toHashStampRequest(input, principal.accountId));
    } catch (error) {
      failure = { index, error };
      break;
    }
  }
  const charged = await chargeInOrder(deps.limits, principal, failure ? failure.index + 1 : inputs.length);
  if (charged.refusal) failure = { index: charged.allowed, error: charged.refusal };
  const results = await deps.stamps.createManyFromHash(requests.slice(0, charged.allowed), {
    stopAtRefusal: true,
    progress,
  });
  const refused = results.findIndex((r) => r instanceof ServiceError);
  if (refused !== -1) failure = { index: refused, error: results[refused] };
  return {
    views: results.filter((r): r is StampView => !(r instanceof ServiceError)),
    failure: failure && withSequence(failure.error, firstSequence + failure.index),
    items: charged.items,
  };
}

/**
 * Charges `count` bulk items in order: in charges of as many as one charge may hold
 * (CallLimits.itemsPerCharge), and when the budget does not hold a whole charge, as many of its
 * items as it holds, one at a time. Returns how many were charged, the refusal that stopped it and
 * the last figures of the budget.
 */
async function chargeInOrder(limits: CallLimits, principal: Principal, count: number) {
  const most = limits.itemsPerCharge(principal);
  let allowed = 0;
  let items: ItemsMetadata = {};
  const charge = async (size: number) => {
    items = await limits.chargeItems(principal, size);
    allowed += size;
  };
  // A refusal carries the budget's figures itself.
  const stopped = (refusal: unknown) => ({ allowed, refusal, items });
  while (allowed < count) {
    const size = Math.min(most, count - allowed);
    try {
      await charge(size);
      continue;
    } catch (refusal) {
      if (size === 1) return stopped(refusal);
    }
    for (let i = 0; i < size; i++) {
      try {
        await charge(1);
      } catch (refusal) {
        return stopped(refusal);
      }
    }
  }
  return { allowed, refusal: null, items };
}

/** StreamStamps names the request that ended the call: `request 3: content_hash: …`. */
function withSequence(err: unknown, sequence: number): unknown {
  if (err instanceof ServiceError) {
    return new ServiceError(err.code, `request ${sequence}: ${err.message}`, err.reason);
  }
  if (err instanceof ConnectError) {
    return new ConnectError(`request ${sequence}: ${err.rawMessage}`, err.code, err.metadata);
  }
  return err;
}
