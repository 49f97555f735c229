import { jcs } from "../../core/jcs.js";
import { invalid } from "../errors.js";

/** Free text and metadata a stamp carries (gRPC, WebSocket); both are signed into the document. */
export interface Annotations {
  description?: string;
  metadata?: Record<string, string>;
}

// The limits of the proto's CreateStampRequest and the spec's StampMetadata.
const MAX_DESCRIPTION = 1000;
const MAX_KEYS = 32;
const MAX_KEY = 64;
const MAX_VALUE = 512;

const length = (s: string) => [...s].length;

/**
 * Metadata whose values may be any JSON (the WebSocket `stamp` message) as a stamp records it:
 * string values as they are, any other value as its RFC 8785 (JCS) text, so one value always gives
 * one string, and the document and gRPC's map<string,string> show the same thing. The limits of
 * normalizeAnnotations then apply to that text.
 */
export function metadataAsText(given: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(given).map(([key, value]) => [key, typeof value === "string" ? value : jcs(value)]),
  );
}

/**
 * The annotations as the document records them: empty ones are left out (a proto3 string or map
 * cannot tell empty from absent), others must respect the limits or the call is a 400.
 */
export function normalizeAnnotations(given: Annotations): Annotations {
  const out: Annotations = {};
  if (given.description) {
    if (length(given.description) > MAX_DESCRIPTION) {
      throw invalid(`description must be at most ${MAX_DESCRIPTION} characters`);
    }
    out.description = given.description;
  }
  const entries = Object.entries(given.metadata ?? {});
  if (entries.length > MAX_KEYS) throw invalid(`metadata may have at most ${MAX_KEYS} keys`);
  for (const [key, value] of entries) {
    if (length(key) < 1 || length(key) > MAX_KEY)
      throw invalid(`metadata keys must be 1 to ${MAX_KEY} characters`);
    if (typeof value !== "string" || length(value) > MAX_VALUE) {
      throw invalid(`metadata value of "${key}" must be a string of at most ${MAX_VALUE} characters`);
    }
  }
  if (entries.length > 0) out.metadata = Object.fromEntries(entries);
  return out;
}
