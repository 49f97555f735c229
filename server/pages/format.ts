import type { components } from "../../gen/openapi/types.js";

type Schemas = components["schemas"];

/** RFC 3339 time as people read it, in UTC to the second: "2024-11-20 04:28:09 UTC". */
export function readableTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

const algorithmNames: Record<Schemas["HashAlgorithm"], string> = {
  "sha3-256": "SHA3-256",
  sha256: "SHA-256",
  blake3: "BLAKE3",
};

export const algorithmName = (algorithm: Schemas["HashAlgorithm"]): string => algorithmNames[algorithm];

const anchorNames: Record<Schemas["AnchorType"], string> = {
  log: "Transparency log",
  rfc3161: "RFC 3161 time-stamp authority",
  bitcoin: "Bitcoin (OpenTimestamps)",
  ethereum: "Ethereum",
};

export const anchorName = (type: Schemas["AnchorType"]): string => anchorNames[type];

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
