import type { Config } from "../config.js";
import type { AnchorType } from "../stamps/stamp-settings.js";

export type AnchorAvailability = Readonly<Record<AnchorType, string | null>>;

/**
 * Which anchors can confirm on this deployment: null when one can, else the reason, naming the
 * setting that enables it, that its anchors show as `unavailable`. Nothing is ever pretended:
 * without an endpoint an anchor is never reported pending, and never confirmed.
 */
export function anchorAvailability(
  config: Pick<Config, "TSA_URL" | "OTS_CALENDAR_URLS" | "ETHEREUM_RPC_URL" | "ETHEREUM_FROM">,
): AnchorAvailability {
  return {
    log: null,
    rfc3161: config.TSA_URL ? null : "no time-stamp authority configured (TSA_URL)",
    bitcoin:
      config.OTS_CALENDAR_URLS && config.OTS_CALENDAR_URLS.length > 0
        ? null
        : "no OpenTimestamps calendar configured (OTS_CALENDAR_URLS)",
    ethereum:
      config.ETHEREUM_RPC_URL && config.ETHEREUM_FROM
        ? null
        : "no Ethereum node configured (ETHEREUM_RPC_URL and ETHEREUM_FROM)",
  };
}
