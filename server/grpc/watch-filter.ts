import { isHashAlgorithm } from "../../core/content-hash.js";
import type { HashAlgorithm } from "../../core/types.js";
import { stampStatuses } from "../../gen/openapi/enums.js";
import { invalid } from "../errors.js";
import type { StampStatus, StoredStamp } from "../stamps/stamp-repository.js";
import { quoted } from "./quoted.js";

/** What a WatchStamps filter looks at. */
export interface WatchedStampFacts {
  status: StampStatus;
  algorithm: HashAlgorithm;
  metadata: Record<string, string>;
}

export type WatchFilter = (stamp: WatchedStampFacts) => boolean;

/**
 * Parses the filter syntax of WatchStampsRequest.filter (stamp.proto): whitespace-separated
 * `name=value` terms, all of which must match; `status` and `algorithm` name the stamp's fields,
 * any other name a metadata key. Empty: every stamp. Bad syntax is INVALID_ARGUMENT.
 */
export function parseWatchFilter(text: string): WatchFilter {
  const terms = text.split(/\s+/).filter(Boolean).map(parseTerm);
  return (stamp) => terms.every((matches) => matches(stamp));
}

function parseTerm(term: string): WatchFilter {
  const eq = term.indexOf("=");
  if (eq < 0) throw invalid(`filter: term ${quoted(term)} is not name=value`);
  const name = term.slice(0, eq);
  const value = term.slice(eq + 1);
  if (name === "") throw invalid(`filter: term ${quoted(term)} has an empty name`);
  if (name === "status") {
    if (!(stampStatuses as readonly string[]).includes(value)) {
      throw invalid(`filter: unknown status ${quoted(value)} (expected pending, confirmed or anchored)`);
    }
    return (stamp) => stamp.status === value;
  }
  if (name === "algorithm") {
    if (!isHashAlgorithm(value)) {
      throw invalid(`filter: unknown algorithm ${quoted(value)} (expected sha3-256, sha256 or blake3)`);
    }
    return (stamp) => stamp.algorithm === value;
  }
  return (stamp) => Object.hasOwn(stamp.metadata, name) && stamp.metadata[name] === value;
}

/** The facts of a stored stamp, as they are now. */
export function factsOf(stamp: StoredStamp): WatchedStampFacts {
  const { document } = stamp;
  return { status: stamp.status, algorithm: document.document.algorithm, metadata: document.metadata ?? {} };
}
