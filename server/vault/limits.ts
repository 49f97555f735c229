import { type FieldError, invalid } from "../errors.js";
import { nestedDeeperThan } from "../json-depth.js";
import type { VaultSettings } from "./deps.js";

/** The most content URIs a vault holds (spec: CreateVaultRequest.content_uris, VaultMirrors). */
export const maxContentUris = 16;

/** Bounds of a vault's metadata beyond its schema (spec: VaultMetadata): compact JSON bytes, nesting. */
export const maxMetadataBytes = 16_384;
export const maxMetadataDepth = 8;

/** Metadata too deep or too big, as a field error (depth first: JSON.stringify recurses). */
export function metadataError(metadata: unknown, path: string): FieldError | undefined {
  if (nestedDeeperThan(metadata, maxMetadataDepth)) {
    return { path, message: `must NOT nest objects and arrays deeper than ${maxMetadataDepth} levels` };
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (bytes > maxMetadataBytes) {
    return { path, message: `must NOT be larger than ${maxMetadataBytes} bytes as JSON (is ${bytes})` };
  }
  return undefined;
}

/** A heartbeat_deadline or group interval outside VAULT_MIN/MAX_DEADLINE_SECONDS, as a field error. */
export function durationError(
  settings: VaultSettings,
  seconds: number,
  path: string,
): FieldError | undefined {
  const min = settings.VAULT_MIN_DEADLINE_SECONDS;
  const max = settings.VAULT_MAX_DEADLINE_SECONDS;
  if (seconds < min) return { path, message: `must be >= ${min}` };
  if (seconds > max) return { path, message: `must be <= ${max}` };
  return undefined;
}

/** A list longer than MAX_BATCH_HEARTBEAT, as a field error. */
export function batchSizeError(settings: VaultSettings, count: number, path: string): FieldError | undefined {
  const max = settings.MAX_BATCH_HEARTBEAT;
  return count > max ? { path, message: `must NOT have more than ${max} items` } : undefined;
}

/** A page size above MAX_PAGE_SIZE is refused (400) rather than silently cut. */
export function checkPageSize(settings: VaultSettings, limit: number): void {
  if (limit > settings.MAX_PAGE_SIZE) {
    const message = `must be <= ${settings.MAX_PAGE_SIZE}`;
    throw invalid("request validation failed", [{ path: "/query/limit", message }]);
  }
}

/** Throws 400 validation_failed listing every problem, when there is any. */
export function rejectIfAny(errors: (FieldError | undefined)[]): void {
  const found = errors.filter((e): e is FieldError => e !== undefined);
  if (found.length > 0) throw invalid("request validation failed", found);
}
