import type { ContentHash } from "../../core/content-hash.js";
import type { HashMatch, StampRepository } from "./stamp-repository.js";

/** Page size of a search that names none (REST `limit`, gRPC `page_size` 0). */
export const DEFAULT_SEARCH_LIMIT = 50;
/** The largest page a search returns (REST `limit`'s maximum; gRPC refuses a larger `page_size`). */
export const MAX_SEARCH_LIMIT = 500;

/** A search by document hash, as the transports have checked it. */
export interface HashSearch {
  hash: ContentHash;
  /** 1 to MAX_SEARCH_LIMIT. */
  limit: number;
  /** The `nextCursor` of the previous page (a stamp id); absent for the first page. */
  cursor?: string;
}

/** One page of stamps of a document hash, newest first. */
export interface HashSearchPage {
  hash: ContentHash;
  matches: HashMatch[];
  /** The cursor of the next page, or null when this page is the last. */
  nextCursor: string | null;
}

/**
 * Finds stamps by document hash (REST `GET /stamps?hash=`, gRPC SearchStamps). Public: every caller
 * sees every matching stamp, as a transparency log's index would show them (SECURITY.md, "Search
 * by document hash"); so nothing here depends on who asks.
 */
export class StampSearch {
  constructor(private readonly stamps: Pick<StampRepository, "findByHash">) {}

  /**
   * One page. One row more than the page is read, so the last page says so (a null cursor) instead
   * of sending the client for an empty one.
   */
  async byHash(search: HashSearch): Promise<HashSearchPage> {
    const { hash, limit, cursor } = search;
    const found = await this.stamps.findByHash(hash, { limit: limit + 1, after: cursor });
    const matches = found.slice(0, limit);
    return { hash, matches, nextCursor: found.length > limit ? matches.at(-1)!.id : null };
  }
}
