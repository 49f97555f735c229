import { createHash, createPublicKey, type X509Certificate } from "node:crypto";
import type { components } from "../../gen/openapi/types.js";
import { trustedTsaCas } from "../anchors/adapters.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { NewOutsideTimestamp } from "./stamp-log-repository.js";
import { outsideTimestampAuthority } from "./trusted-root.js";

type RingKey = components["schemas"]["RingKey"];

/** A bundle's signing key as a verifier holds it: the hint, the SPKI and its period in `GET /keys`. */
export interface VerifierKey {
  keyId: string;
  spki: Uint8Array;
  period: KeyPeriod;
}

/** A key's period as Sigstore verifiers check it (docs/sigstore.md): both ends included. */
export interface KeyPeriod {
  start: Date;
  end?: Date;
}

/** What the outside token is asked for: a bundle's signature, by its key, over its digest. */
export interface SignedDigest {
  algorithm: string;
  digest: Uint8Array;
  signature: Uint8Array;
  key: VerifierKey;
}

export interface OutsideTsaOptions {
  /** `TSA_URL`. */
  url: string;
  /** `TSA_CA_FILE`: a token must chain to one of them, which ends its chain in the trusted root. */
  trustedCas: readonly X509Certificate[];
  /** `TSA_BUNDLE_TIMEOUT_MS`: the bound on the exchange, answer included. */
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
}

/**
 * After a failure the outside TSA is left alone this long: while it is down or hanging, bundle
 * requests answer at once with the built-in token instead of each waiting out the timeout.
 */
const QUIET_MS = 30_000;

/**
 * The outside RFC 3161 authority of `TSA_URL` as a second timestamp of Sigstore bundles
 * (docs/sigstore.md): the time that is not the deployment's own word.
 */
export class OutsideTsa {
  private quietUntil = 0;

  constructor(private readonly options: OutsideTsaOptions) {}

  /**
   * The outside TSA's token over `signed.signature` (a SHA-256 imprint, as the built-in token's),
   * with its chain, when the TSA answers within the timeout with a token sigstore-js accepts for
   * this bundle, its time within the key's period included. Otherwise (down, slow, garbage, a chain
   * not of TSA_CA_FILE, a time after the key's period) undefined: the bundle goes without it, and a
   * later request asks again once the TSA's quiet period is over. Never throws.
   */
  async timestamp(signed: SignedDigest): Promise<NewOutsideTimestamp | undefined> {
    const { url, trustedCas, timeoutMs, clock, logger } = this.options;
    if (clock.now().getTime() < this.quietUntil) return undefined;
    try {
      const { requestTimestamp } = await import("../anchors/tsp-client.js");
      const digest = createHash("sha256").update(signed.signature).digest();
      const granted = await requestTimestamp(url, digest, { trustedCas, timeoutMs });
      const token: NewOutsideTimestamp = {
        response: granted.response,
        genTime: wholeSecond(granted.genTime),
        signerSha256: createHash("sha256").update(granted.chain[0]!.raw).digest(),
        chainPem: granted.chain.map((cert) => cert.toString()).join(""),
      };
      await sigstoreAccepts(token, signed);
      return token;
    } catch (err) {
      this.quietUntil = clock.now().getTime() + QUIET_MS;
      logger.warn({ err, tsa: url }, "a Sigstore bundle goes without the outside TSA's token");
      return undefined;
    }
  }
}

/**
 * The outside TSA of `TSA_URL`, or none: without `TSA_CA_FILE` there is no chain to put in the
 * trusted root, so bundles carry the built-in token alone (docs/sigstore.md).
 */
export function outsideTsaOf(
  config: Pick<Config, "TSA_URL" | "TSA_CA_FILE" | "TSA_BUNDLE_TIMEOUT_MS">,
  clock: Clock,
  logger: Logger,
): OutsideTsa | undefined {
  const trustedCas = trustedTsaCas(config.TSA_CA_FILE);
  if (!config.TSA_URL || !trustedCas) return undefined;
  const timeoutMs = config.TSA_BUNDLE_TIMEOUT_MS;
  return new OutsideTsa({ url: config.TSA_URL, trustedCas, timeoutMs, clock, logger });
}

/** A published key's period as the SDK's verifier and docs/sigstore.md give it to sigstore-js. */
export function keyPeriod(key: RingKey): KeyPeriod {
  const ends = [key.not_after, key.revoked_at].filter((t): t is string => t !== undefined).sort();
  return { start: wholeSecond(new Date(key.not_before)), ...(ends[0] && { end: new Date(ends[0]) }) };
}

export const inPeriod = (period: KeyPeriod, at: Date): boolean =>
  period.start <= at && (period.end === undefined || at <= period.end);

/** Sigstore clients read a token's time to the second (sigstore-service.ts). */
const wholeSecond = (at: Date): Date => new Date(Math.floor(at.getTime() / 1000) * 1000);

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/**
 * Throws unless sigstore-js's own Verifier accepts `token` as the timestamp of a bundle of
 * `signed`, against a trusted root of its chain alone: parsing (a fraction of a second it cannot
 * read, a signer named by key id), the imprint, the chain at the token's time, the signature
 * algorithm, and the hinted key's period at the token's time, which verifiers check against every
 * timestamp. The server holds the digest, not the document, so the one check left out is the
 * message signature, which it made itself. sigstore-js is loaded on first use, as the SDK does.
 */
async function sigstoreAccepts(token: NewOutsideTimestamp, signed: SignedDigest): Promise<void> {
  const [{ bundleFromJSON }, { TrustedRoot }, { toSignedEntity, toTrustMaterial, Verifier }] =
    await Promise.all([
      import("@sigstore/bundle"),
      import("@sigstore/protobuf-specs"),
      import("@sigstore/verify"),
    ]);
  const { key } = signed;
  const entity = toSignedEntity(
    bundleFromJSON({
      mediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
      verificationMaterial: {
        publicKey: { hint: key.keyId },
        tlogEntries: [],
        timestampVerificationData: { rfc3161Timestamps: [{ signedTimestamp: base64(token.response) }] },
      },
      messageSignature: {
        messageDigest: { algorithm: signed.algorithm, digest: base64(signed.digest) },
        signature: base64(signed.signature),
      },
    }),
  );
  const root = TrustedRoot.fromJSON({
    mediaType: "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
    tlogs: [],
    certificateAuthorities: [],
    ctlogs: [],
    timestampAuthorities: [outsideTimestampAuthority(token.chainPem)],
  });
  const publicKey = createPublicKey({ key: Buffer.from(key.spki), format: "der", type: "spki" });
  const material = toTrustMaterial(root, () => ({ publicKey, validFor: (at) => inPeriod(key.period, at) }));
  const signature = Object.assign(Object.create(entity.signature), { verifySignature: () => true });
  new Verifier(material, { tlogThreshold: 0, timestampThreshold: 1, ctlogThreshold: 0 }).verify({
    ...entity,
    signature,
  });
}
