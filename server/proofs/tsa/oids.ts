import type { HashAlgorithm } from "../../../core/types.js";

/** Object identifiers of the digests a time-stamp token can name (NIST CSOR); BLAKE3 has none. */
export const digestOids: Partial<Record<HashAlgorithm, string>> = {
  sha256: "2.16.840.1.101.3.4.2.1",
  "sha3-256": "2.16.840.1.101.3.4.2.8",
};

export const OID = {
  signedData: "1.2.840.113549.1.7.2",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  /**
   * stampd's TSA policy: an OID under the UUID arc 2.25 (ITU-T X.667), which needs no
   * registration; the UUID was drawn once for stampd.
   */
  stampdPolicy: "2.25.201963187428474633620398391312957829731",
} as const;
