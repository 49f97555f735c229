import { ConnectError } from "@connectrpc/connect";
import type { Principal } from "../auth/principal.js";
import { ServiceError } from "../errors.js";
import type { BatchProgress } from "../stamps/batch-progress.js";
import type { HashStampRequest, StampService } from "../stamps/stamp-service.js";
import type { StampView } from "../stamps/stamp-view.js";
import type { CallLimits } from "./call-limits.js";
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
}

/**
 * Stamps a group of StreamStamps requests (those read while the previous group was being stamped)
 * as one batch: one charge, one service signature over their Merkle root, one transaction. It
 * keeps the stream's per-request rules: requests are charged and checked in order, and the first
 * one refused (rate limit, bad input) ends the call after the stamps of the requests before it;
 * nothing after it is made. A group is charged up to that request in as few charges as the
 * caller's tier allows, one request at a time only when the budget does not hold a whole charge.
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
  };
}

/**
 * Charges `count` stamps in order, each at its full weight: in charges of as many as one charge may
 * hold (CallLimits.perCharge), and when the budget does not hold a whole charge, as many of its
 * stamps as it holds, one at a time. Returns how many were charged and the refusal that stopped it.
 */
async function chargeInOrder(limits: CallLimits, principal: Principal, count: number) {
  const most = limits.perCharge(principal, "stamp");
  let allowed = 0;
  while (allowed < count) {
    const size = Math.min(most, count - allowed);
    try {
      await limits.charge(principal, "stamp", size);
      allowed += size;
      continue;
    } catch (refusal) {
      if (size === 1) return { allowed, refusal };
    }
    for (let i = 0; i < size; i++) {
      try {
        await limits.charge(principal, "stamp");
        allowed++;
      } catch (refusal) {
        return { allowed, refusal };
      }
    }
  }
  return { allowed, refusal: null };
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
