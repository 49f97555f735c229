import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import * as pkijs from "pkijs";
import { fromBase64 } from "../../../core/base64.js";
import { type RingKey, ringTsaKeyProblem } from "../../../core/key-ring.js";
import type { HashAlgorithm } from "../../../core/types.js";

/** An RFC 3161 token that does not time-stamp the expected hash or does not verify. */
export class TimestampTokenError extends Error {
  override readonly name = "TimestampTokenError";
}

/** What a verified token says. */
export interface VerifiedTimestamp {
  /** `genTime`: when the TSA saw the hash. */
  genTime: Date;
  /** The token's serial number, hex. */
  serial: string;
  /** The subject of the TSA certificate that signed it. */
  signer: string;
  /**
   * SHA-256 of that certificate (DER), hex: what the token's ESSCertIDv2 names it by, and what
   * finds its key in the deployment's key ring (`ringTsaKeyProblem`).
   */
  certificateHash: string;
}

export interface TimestampTokenOptions {
  /**
   * The deployment's key ring (`GET /keys`): the signing certificate must be one of its TSA keys
   * and `genTime` in that key's period, before any revocation (tokens of a key revoked later
   * stay valid, as its earlier stamps do).
   */
  keyRing?: readonly RingKey[] | undefined;
}

// The object identifiers RFC 3161 messageImprints name (BLAKE3 has none).
const imprintOids: Partial<Record<HashAlgorithm, string>> = {
  sha256: "2.16.840.1.101.3.4.2.1",
  "sha3-256": "2.16.840.1.101.3.4.2.8",
};
const signerDigests: Record<string, { name: string; hash: (data: Uint8Array) => Uint8Array }> = {
  "2.16.840.1.101.3.4.2.1": { name: "SHA-256", hash: sha256 },
  "2.16.840.1.101.3.4.2.2": { name: "SHA-384", hash: sha384 },
  "2.16.840.1.101.3.4.2.3": { name: "SHA-512", hash: sha512 },
};
const TST_INFO = "1.2.840.113549.1.9.16.1.4";
const MESSAGE_DIGEST = "1.2.840.113549.1.9.4";
const SIGNING_CERTIFICATE_V2 = "1.2.840.113549.1.9.16.2.47";
const EXTENDED_KEY_USAGE = "2.5.29.37";
const TIME_STAMPING = "1.3.6.1.5.5.7.3.8";

/**
 * Verifies a DER `TimeStampResp` offline, with the checks of `openssl ts -verify -digest <hash>
 * -CAfile <ca>`: the request was granted; the token's `messageImprint` is `hex` under
 * `algorithm`; the CMS `messageDigest` attribute is the hash of the TSTInfo and the signature over
 * the signed attributes verifies with a certificate the token carries; that certificate is a
 * time-stamping certificate (extendedKeyUsage `timeStamping`), valid at `genTime` and issued by a
 * certificate of `caPem` (a bundle: the one that issued it is found); with `keyRing`, the
 * certificate is a ring TSA key's and `genTime` in its period (`TimestampTokenOptions`). A bare
 * `TimeStampToken` (what `openssl ts -verify -token_in` reads) is taken too. Throws
 * `TimestampTokenError` naming the first check that fails.
 * Portable: pkijs over WebCrypto, no node: imports.
 *
 * @example
 * const tsr = await client.stamps.timestamp(stamp.stamp_id);
 * const { genTime } = await verifyTimestampToken(tsr, stamp.stamp_json.document.algorithm, stamp.document_hash, caPem);
 * // Before and after TSA rotations, with the deployment's ring as the trust anchors:
 * const ring = (await client.log.keyRing()).keys;
 * await verifyTimestampToken(tsr, "sha256", hash, ringTsaCaPem(ring), { keyRing: ring });
 */
export async function verifyTimestampToken(
  response: Uint8Array,
  algorithm: HashAlgorithm,
  hex: string,
  caPem: string,
  options: TimestampTokenOptions = {},
): Promise<VerifiedTimestamp> {
  const cas = parsePem(caPem);
  if (cas.length === 0) throw new TimestampTokenError("no CA certificate to check the TSA against");
  const verified = await checkToken(response, algorithm, hex, cas);
  const problem =
    options.keyRing &&
    ringTsaKeyProblem(options.keyRing, verified.certificateHash, verified.genTime.toISOString());
  if (problem) throw new TimestampTokenError(problem);
  return verified;
}

/**
 * The checks of `verifyTimestampToken` but the last: the token time-stamps `hex` under
 * `algorithm` and its CMS signature verifies with the time-stamping certificate it carries (valid
 * at `genTime`), whose issuer is not checked. For a token of a TSA whose CA the verifier does not
 * hold: it proves the token unchanged since that certificate signed it, not who the signer is
 * (see `signer`). Takes a `TimeStampResp` or a bare `TimeStampToken`.
 *
 * @example
 * const anchor = proof.anchors.find((a) => a.type === "rfc3161");
 * const { genTime, signer } = await verifyTimestampSignature(fromBase64(anchor.evidence), "sha256", proof.batch.root);
 */
export async function verifyTimestampSignature(
  token: Uint8Array,
  algorithm: HashAlgorithm,
  hex: string,
): Promise<VerifiedTimestamp> {
  return checkToken(token, algorithm, hex, undefined);
}

async function checkToken(
  der: Uint8Array,
  algorithm: HashAlgorithm,
  hex: string,
  cas: pkijs.Certificate[] | undefined,
): Promise<VerifiedTimestamp> {
  const { signed, info } = parseToken(der);
  const oid = imprintOids[algorithm];
  if (!oid) throw new TimestampTokenError(`${algorithm} has no RFC 3161 object identifier`);
  const imprint = info.messageImprint;
  if (imprint.hashAlgorithm.algorithmId !== oid || hexOf(imprint.hashedMessage) !== hex.toLowerCase()) {
    throw new TimestampTokenError("the token time-stamps another hash");
  }
  const signer = await signerOf(signed);
  const certificateHash = bytesToHex(sha256(new Uint8Array(signer.toSchema().toBER())));
  checkSigningCertificate(signed, certificateHash);
  checkTsaCertificate(signer, info.genTime);
  if (cas && !(await issuedByOneOf(signer, cas))) {
    throw new TimestampTokenError("the TSA certificate is not issued by the trusted CA");
  }
  return {
    genTime: info.genTime,
    serial: hexOf(info.serialNumber),
    signer: signer.subject.typesAndValues.map((t) => `${t.value.valueBlock.value}`).join(", "),
    certificateHash,
  };
}

/**
 * RFC 5816: the signed ESSCertIDv2 names the signing certificate by its hash, so a token cannot be
 * passed off as another certificate's. Its first entry, with the default SHA-256, must be the
 * signer's; an other hash algorithm is left to the CA check.
 */
function checkSigningCertificate(signed: pkijs.SignedData, certificateHash: string): void {
  const attribute = signed.signerInfos[0]?.signedAttrs?.attributes.find(
    (a) => a.type === SIGNING_CERTIFICATE_V2,
  );
  if (!attribute) return;
  // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }; ESSCertIDv2 ::= SEQUENCE {
  // hashAlgorithm DEFAULT sha256, certHash OCTET STRING, ... }.
  const certs = (attribute.values[0] as Asn1Node | undefined)?.valueBlock.value?.[0];
  const certHash = certs?.valueBlock.value?.[0]?.valueBlock.value?.[0];
  const isOctetString = certHash?.idBlock.tagClass === 1 && certHash.idBlock.tagNumber === 4;
  if (!isOctetString || !certHash.valueBlock.valueHexView) return;
  if (bytesToHex(certHash.valueBlock.valueHexView) !== certificateHash) {
    throw new TimestampTokenError(
      "the token's signing-certificate attribute (ESSCertIDv2) names another certificate",
    );
  }
}

/**
 * `genTime` and serial of a token (a `TimeStampResp` or a bare `TimeStampToken`) without verifying
 * it, to describe it (`stampd info`).
 *
 * @example
 * const { genTime, serial } = readTimestampToken(fromBase64(bundle.timestamp.token));
 */
export function readTimestampToken(response: Uint8Array): { genTime: Date; serial: string } {
  const { info } = parseToken(response);
  return { genTime: info.genTime, serial: hexOf(info.serialNumber) };
}

function parseToken(der: Uint8Array): { signed: pkijs.SignedData; info: pkijs.TSTInfo } {
  try {
    const token = isBareToken(der) ? pkijs.ContentInfo.fromBER(new Uint8Array(der)) : grantedToken(der);
    if (token.contentType !== pkijs.ContentInfo.SIGNED_DATA) {
      throw new TimestampTokenError("the token is not CMS signed data");
    }
    const signed = new pkijs.SignedData({ schema: token.content });
    const content = signed.encapContentInfo;
    if (content.eContentType !== TST_INFO || !content.eContent) {
      throw new TimestampTokenError("the token's content is not a TSTInfo");
    }
    return { signed, info: pkijs.TSTInfo.fromBER(eContentBytes(signed)) };
  } catch (err) {
    if (err instanceof TimestampTokenError) throw err;
    throw new TimestampTokenError(`not a DER TimeStampResp or TimeStampToken (${(err as Error).message})`);
  }
}

/**
 * Inside its outer SEQUENCE, a `TimeStampResp` opens with its `PKIStatusInfo` (a SEQUENCE, tag
 * 0x30); a `TimeStampToken`, being a CMS `ContentInfo`, with its content type (an OBJECT
 * IDENTIFIER, tag 0x06). Read from the DER header: the length is short (one byte) or long form.
 */
function isBareToken(der: Uint8Array): boolean {
  if (der[0] !== 0x30 || der.length < 2) return false;
  const length = der[1]!;
  return der[length & 0x80 ? 2 + (length & 0x7f) : 2] === 0x06;
}

function grantedToken(der: Uint8Array): pkijs.ContentInfo {
  const parsed = pkijs.TimeStampResp.fromBER(new Uint8Array(der));
  const status = parsed.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    throw new TimestampTokenError(`the TSA did not grant the token (status ${status})`);
  }
  if (!parsed.timeStampToken) throw new TimestampTokenError("the response holds no token");
  return parsed.timeStampToken;
}

/**
 * RFC 5652 5.4: the messageDigest attribute is the hash of the TSTInfo, and the signature over
 * the DER SET of the signed attributes verifies with one of the token's certificates.
 */
async function signerOf(signed: pkijs.SignedData): Promise<pkijs.Certificate> {
  const info = signed.signerInfos[0];
  const digest = info && signerDigests[info.digestAlgorithm.algorithmId];
  const attrs = info?.signedAttrs;
  if (!info || !digest || !attrs) throw new TimestampTokenError("the token has no usable signer");
  const claimed = attrs.attributes.find((a) => a.type === MESSAGE_DIGEST)?.values[0];
  const actual = bytesToHex(digest.hash(eContentBytes(signed)));
  if (!claimed || hexOf(claimed) !== actual) {
    throw new TimestampTokenError("the signed message digest is not the TSTInfo's");
  }
  const der = new Uint8Array(attrs.encodedValue);
  der[0] = 0x31; // signed as an explicit SET OF, stored with the [0] IMPLICIT tag
  const crypto = pkijs.getCrypto(true);
  for (const cert of signed.certificates ?? []) {
    if (!(cert instanceof pkijs.Certificate)) continue;
    const ok = await crypto
      .verifyWithPublicKey(
        der,
        info.signature,
        cert.subjectPublicKeyInfo,
        info.signatureAlgorithm,
        digest.name,
      )
      .catch(() => false);
    if (ok) return cert;
  }
  throw new TimestampTokenError("the token's signature does not verify with a certificate it carries");
}

/** The parts of an asn1js value read here (asn1js is pkijs's, not a dependency of the SDK). */
interface Asn1Node {
  idBlock: { tagClass: number; tagNumber: number };
  valueBlock: { value?: Asn1Node[]; valueHexView?: Uint8Array };
}

function checkTsaCertificate(cert: pkijs.Certificate, genTime: Date): void {
  const usage = cert.extensions?.find((e) => e.extnID === EXTENDED_KEY_USAGE)?.parsedValue as
    | pkijs.ExtKeyUsage
    | undefined;
  if (!usage?.keyPurposes.includes(TIME_STAMPING)) {
    throw new TimestampTokenError("the signing certificate is not a time-stamping certificate");
  }
  if (genTime < cert.notBefore.value || genTime > cert.notAfter.value) {
    throw new TimestampTokenError("the TSA certificate was not valid at the token's time");
  }
}

async function issuedByOneOf(cert: pkijs.Certificate, cas: pkijs.Certificate[]): Promise<boolean> {
  for (const ca of cas) {
    if (cert.issuer.isEqual(ca.subject) && (await cert.verify(ca).catch(() => false))) return true;
  }
  return false;
}

/** The certificates of a PEM text. */
function parsePem(pem: string): pkijs.Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  try {
    return blocks.map((block) => {
      const body = block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "");
      return pkijs.Certificate.fromBER(new Uint8Array(fromBase64(body)));
    });
  } catch (err) {
    throw new TimestampTokenError(`the CA certificate does not parse (${(err as Error).message})`);
  }
}

function eContentBytes(signed: pkijs.SignedData): Uint8Array<ArrayBuffer> {
  return new Uint8Array(signed.encapContentInfo.eContent!.getValue());
}

function hexOf(value: { valueBlock: { valueHexView: Uint8Array } }): string {
  return bytesToHex(value.valueBlock.valueHexView);
}
