import type { AnchorType } from "../stamps/stamp-settings.js";
import type { AnchorAdapter } from "./anchor.js";
import type { AnchorRecord } from "./anchor-repository.js";

/**
 * Whether a confirmed stamp is anchored: every requested anchor that can confirm has confirmed.
 * An anchor cannot confirm when it failed or its adapter is unavailable here. At least one anchor
 * must have confirmed: a stamp that asked for none, or only for unavailable ones, stays
 * `confirmed` (anchored by nothing is not anchored).
 */
export function isAnchored(
  requested: readonly AnchorType[],
  records: readonly AnchorRecord[],
  adapters: readonly Pick<AnchorAdapter, "type" | "unavailable">[],
): boolean {
  const available = (type: AnchorType) => adapters.some((a) => a.type === type && a.unavailable === null);
  const status = (type: AnchorType) => records.find((r) => r.type === type)?.status ?? "pending";
  const confirmable = requested.filter((type) => available(type) && status(type) !== "failed");
  return confirmable.length > 0 && confirmable.every((type) => status(type) === "confirmed");
}
