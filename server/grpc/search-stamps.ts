import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { formatContentHash } from "../../core/content-hash.js";
import {
  type SearchStampsRequest,
  type SearchStampsResponse,
  SearchStampsResponseSchema,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import { invalid } from "../errors.js";
import { contentHashArgument } from "../hashing/content-hash-argument.js";
import {
  DEFAULT_SEARCH_LIMIT,
  type HashSearch,
  type HashSearchPage,
  MAX_SEARCH_LIMIT,
} from "../stamps/stamp-search.js";
import { requireStampId } from "./requests.js";

/**
 * A SearchStamps request as the stamps domain takes it: the content_hash form of stamp.proto,
 * page_size 0 for the default (proto3 cannot tell it from unset) and at most 500, like REST's
 * `limit`; page_token a stamp id, as next_page_token gives it.
 */
export function toHashSearch(req: SearchStampsRequest): HashSearch {
  const hash = contentHashArgument(req.contentHash);
  if (req.pageSize < 0 || req.pageSize > MAX_SEARCH_LIMIT) {
    throw invalid(
      `page_size: must be 0 (for ${DEFAULT_SEARCH_LIMIT}) to ${MAX_SEARCH_LIMIT}, got ${req.pageSize}`,
    );
  }
  const cursor = req.pageToken === "" ? undefined : pageToken(req.pageToken);
  return { hash, limit: req.pageSize || DEFAULT_SEARCH_LIMIT, cursor };
}

function pageToken(token: string): string {
  try {
    return requireStampId(token);
  } catch {
    throw invalid("page_token: must be the next_page_token of a previous page");
  }
}

export function toSearchStampsResponse(page: HashSearchPage): SearchStampsResponse {
  return create(SearchStampsResponseSchema, {
    contentHash: formatContentHash(page.hash),
    stamps: page.matches.map((match) => ({
      id: match.id,
      timestamp: timestampFromDate(new Date(match.createdAt)),
    })),
    nextPageToken: page.nextCursor ?? "",
  });
}
