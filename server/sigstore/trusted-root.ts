import { createHash, X509Certificate } from "node:crypto";
import { ed25519KeyHash, stampLogOrigin } from "../../core/checkpoint.js";
import type { RingKey } from "../../core/key-ring.js";
import type { components } from "../../gen/openapi/types.js";
import { publicKeySpki } from "../keys/sigstore-key.js";
import { rawEd25519 } from "../log/checkpoint-signer.js";

export type SigstoreTrustedRoot = components["schemas"]["SigstoreTrustedRoot"];
type TlogInstance = SigstoreTrustedRoot["tlogs"][number];
type TimestampAuthority = SigstoreTrustedRoot["timestampAuthorities"][number];

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/**
 * The stamp log as a Sigstore trusted root lists it, once per log key (of its origin then): the
 * Ed25519 key as SPKI, `logId` Rekor's SHA-256 of it, `checkpointKeyId` the signed-note key hash
 * whose first 4 bytes Sigstore clients match against a checkpoint signature's key hint, and a
 * `baseUrl` they match the signature's key name against.
 */
export function stampLogInstance(logKey: RingKey): TlogInstance {
  const origin = stampLogOrigin(logKey.origin!);
  const spki = publicKeySpki(logKey.public_key);
  return {
    baseUrl: `https://${origin}`,
    hashAlgorithm: "SHA2_256",
    publicKey: { rawBytes: base64(spki), keyDetails: "PKIX_ED25519", validFor: { start: logKey.not_before } },
    logId: { keyId: base64(createHash("sha256").update(spki).digest()) },
    checkpointKeyId: { keyId: base64(ed25519KeyHash(origin, rawEd25519(logKey.public_key))) },
  };
}

/** A TSA key of the ring as a Sigstore timestamp authority: its chain, trusted for its period. */
function timestampAuthority(tsaKey: RingKey): TimestampAuthority {
  const ends = [tsaKey.not_after, tsaKey.revoked_at].filter((t): t is string => t !== undefined).sort();
  return chainAuthority(certificatesOf(tsaKey.public_key), "stampd", {
    start: secondBelow(tsaKey.not_before),
    ...(ends[0] && { end: ends[0] }),
  });
}

/**
 * An outside TSA's chain (`TSA_URL`, leaf first) as a Sigstore timestamp authority, trusted while
 * all its certificates are valid: the outside TSA has no period in our ring, its certificates do.
 */
export function outsideTimestampAuthority(chainPem: string): TimestampAuthority {
  const certificates = certificatesOf(chainPem);
  const latest = (dates: Date[]) => new Date(Math.max(...dates.map(Number)));
  const earliest = (dates: Date[]) => new Date(Math.min(...dates.map(Number)));
  return chainAuthority(certificates, "outside", {
    start: latest(certificates.map((c) => new Date(c.validFrom))).toISOString(),
    end: earliest(certificates.map((c) => new Date(c.validTo))).toISOString(),
  });
}

/** A chain as a timestamp authority, named by its leaf's subject (by `whose` TSA when it has none). */
function chainAuthority(
  certificates: X509Certificate[],
  whose: string,
  validFor: TimestampAuthority["validFor"],
): TimestampAuthority {
  return {
    subject: {
      organization: subjectField(certificates[0]!, "O") ?? whose,
      commonName: subjectField(certificates[0]!, "CN") ?? `${whose} TSA`,
    },
    certChain: { certificates: certificates.map((cert) => ({ rawBytes: base64(cert.raw) })) },
    validFor,
  };
}

const certificatesOf = (pem: string): X509Certificate[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
    (block) => new X509Certificate(block),
  );

/** A period's start to the second below: the bundle's token times are whole seconds (sigstore-service.ts). */
const secondBelow = (iso: string): string =>
  new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toISOString();

const subjectField = (cert: X509Certificate, name: string): string | undefined =>
  cert.subject
    .split("\n")
    .find((line) => line.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/**
 * This deployment's Sigstore trusted root: the stamp log under every log key not revoked (a
 * checkpoint carries no time, so a revoked key's vouch for nothing) and every TSA chain, each for
 * its key's period, so bundles made before a rotation verify after it; then every outside TSA
 * chain (`outsideChains`, PEM) that dated a bundle. No certificate authorities and no CT logs:
 * bundles name keys, not certificates.
 */
export function trustedRoot(
  ring: readonly RingKey[],
  outsideChains: readonly string[] = [],
): SigstoreTrustedRoot {
  return {
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    tlogs: ring.filter((k) => k.kind === "log" && k.state !== "revoked" && k.origin).map(stampLogInstance),
    certificateAuthorities: [],
    ctlogs: [],
    timestampAuthorities: [
      ...ring.filter((k) => k.kind === "tsa").map(timestampAuthority),
      ...outsideChains.map(outsideTimestampAuthority),
    ],
  };
}
