import { shadowAt } from "../../core/shadows.js";
import { notFound } from "../errors.js";
import type { FingerprintDocument, ShadowScale, ShadowTransform } from "./types.js";

/** Where stamps and the fingerprints stored with them are read (the stamp repository). */
export interface StoredFingerprints {
  get(stampId: string): Promise<{ fingerprint: unknown | null } | undefined>;
}

/** The shadow at `scale` of the fingerprint stored with a stamp made with `generate_fp`. */
export async function stampShadow(
  stamps: StoredFingerprints,
  stampId: string,
  scale: ShadowScale,
): Promise<ShadowTransform> {
  const stamp = await stamps.get(stampId);
  if (!stamp) throw notFound(`stamp ${stampId} not found`, "stamp_not_found");
  if (!stamp.fingerprint) throw notFound(`stamp ${stampId} has no fingerprint`, "fingerprint_not_found");
  return shadowAt(stamp.fingerprint as FingerprintDocument, scale);
}
