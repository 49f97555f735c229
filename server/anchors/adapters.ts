import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Clock } from "../clock.js";
import { type Config, ConfigError } from "../config.js";
import type { TransparencyLog } from "../log/transparency-log.js";
import type { AnchorAdapter } from "./anchor.js";
import { anchorAvailability } from "./availability.js";
import { BitcoinAnchor } from "./bitcoin-anchor.js";
import { EthereumAnchor } from "./ethereum-anchor.js";
import { LogAnchor } from "./log-anchor.js";
import { Rfc3161Anchor } from "./rfc3161-anchor.js";

/** The CA certificates of `TSA_CA_FILE` (PEM, one or more); undefined when unset. */
export function trustedTsaCas(file: string | undefined): X509Certificate[] | undefined {
  if (!file) return undefined;
  let pem: string;
  try {
    pem = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      `invalid configuration: TSA_CA_FILE: cannot read ${file}: ${(err as Error).message}`,
    );
  }
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0)
    throw new ConfigError(`invalid configuration: TSA_CA_FILE: no certificate in ${file}`);
  return blocks.map((block) => new X509Certificate(block));
}

/** One adapter per anchor type, each told by the configuration whether it can work here. */
export function createAnchorAdapters(config: Config, log: TransparencyLog, clock: Clock): AnchorAdapter[] {
  const availability = anchorAvailability(config);
  return [
    new LogAnchor(log),
    new Rfc3161Anchor(config.TSA_URL, availability.rfc3161, trustedTsaCas(config.TSA_CA_FILE)),
    new BitcoinAnchor(config.OTS_CALENDAR_URLS ?? [], availability.bitcoin, clock),
    new EthereumAnchor(config.ETHEREUM_RPC_URL, config.ETHEREUM_FROM, availability.ethereum),
  ];
}
