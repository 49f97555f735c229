import { type ContentHash, ContentHashError, parseContentHashText } from "../../core/content-hash.js";
import { invalid } from "../errors.js";

/**
 * A content hash a caller sent (gRPC content_hash, WebSocket contentHash), parsed by core's one
 * parser of the grammar; malformed text is the caller's error (INVALID_ARGUMENT, 400).
 */
export function contentHashArgument(text: string, field = "content_hash"): ContentHash {
  try {
    return parseContentHashText(text, field);
  } catch (err) {
    throw err instanceof ContentHashError ? invalid(err.message) : err;
  }
}
