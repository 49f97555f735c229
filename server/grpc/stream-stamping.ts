import { ConnectError } from "@connectrpc/connect";
import type { Principal } from "../auth/principal.js";
import { ServiceError } from "../errors.js";
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
 * nothing after it is made. A group is charged up to that request at once, one request at a time
 * only when the budget does not hold the whole group.
 */
export async function stampGroup(
  deps: StreamDeps,
  principal: Principal,
  inputs: readonly StampInput[],
  firstSequence: number,
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
  });
  const refused = results.findIndex((r) => r instanceof ServiceError);
  if (refused !== -1) failure = { index: refused, error: results[refused] };
  return {
    views: results.filter((r): r is StampView => !(r instanceof ServiceError)),
    failure: failure && withSequence(failure.error, firstSequence + failure.index),
  };
}

/** Charges `count` stamps; when the budget does not hold them all, as many as it holds, in order. */
async function chargeInOrder(limits: CallLimits, principal: Principal, count: number) {
  try {
    await limits.charge(principal, "stamp", count);
    return { allowed: count, refusal: null };
  } catch (refusal) {
    if (count === 1) return { allowed: 0, refusal };
  }
  for (let allowed = 0; allowed < count; allowed++) {
    try {
      await limits.charge(principal, "stamp");
    } catch (refusal) {
      return { allowed, refusal };
    }
  }
  return { allowed: count, refusal: null };
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
