import { createHash, verify, webcrypto, X509Certificate } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const SHA256_OID = "2.16.840.1.101.3.4.2.1";

/** A time-stamp token a TSA granted for a digest, checked against the request. */
export interface GrantedToken {
  /** The TimeStampToken (CMS ContentInfo), DER. */
  token: Uint8Array;
  genTime: Date;
  /** The whole TimeStampResp as the TSA sent it (what a Sigstore bundle carries). */
  response: Uint8Array;
  /**
   * The signing certificate, then, with `trustedCas`, the carried intermediate (if any) and the
   * trusted CA it chains to.
   */
  chain: X509Certificate[];
}

/**
 * The TSA refused the request (a PKIStatus of rejection), or its token is not signed by a trusted
 * time-stamping certificate: not worth retrying as is.
 */
export class TsaRejection extends Error {
  override readonly name = "TsaRejection";
}

export interface TimestampRequestOptions {
  fetch?: typeof fetch;
  /** CA certificates the TSA's certificate must chain to (`TSA_CA_FILE`); absent: not checked. */
  trustedCas?: readonly X509Certificate[];
  /** How long the exchange may take, reading the answer included; default 30 s. */
  timeoutMs?: number;
}

/**
 * Asks the RFC 3161 TSA at `url` (HTTP transport, RFC 3161 section 3.4) to time-stamp a SHA-256
 * digest, with a fresh nonce and the TSA's certificate requested. The token is accepted only when
 * its imprint and nonce are the request's and its CMS signature verifies with the certificate it
 * carries, and, with `trustedCas`, that certificate is a time-stamping certificate issued by one of
 * them (directly or through one intermediate the token carries). HTTP and network errors throw
 * plain errors (the caller retries).
 */
export async function requestTimestamp(
  url: string,
  digest: Uint8Array,
  options: TimestampRequestOptions = {},
): Promise<GrantedToken> {
  const nonce = webcrypto.getRandomValues(new Uint8Array(8));
  nonce[0]! &= 0x7f;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: imprint(digest),
    nonce: new asn1js.Integer({ valueHex: nonce }),
    certReq: true,
  });
  const response = await (options.fetch ?? fetch)(url, {
    method: "POST",
    headers: { "content-type": "application/timestamp-query", accept: "application/timestamp-reply" },
    body: new Uint8Array(request.toSchema().toBER()),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  if (!response.ok) throw new Error(`TSA ${url} answered HTTP ${response.status}`);
  return checkResponse(new Uint8Array(await response.arrayBuffer()), digest, nonce, options.trustedCas);
}

async function checkResponse(
  der: Uint8Array,
  digest: Uint8Array,
  nonce: Uint8Array,
  trustedCas: readonly X509Certificate[] | undefined,
): Promise<GrantedToken> {
  const response = pkijs.TimeStampResp.fromBER(new Uint8Array(der));
  const status = response.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join("; ");
    throw new TsaRejection(`the TSA refused the request (status ${status}${text ? `: ${text}` : ""})`);
  }
  if (!response.timeStampToken) throw new Error("the TSA granted the request but sent no token");
  const signed = new pkijs.SignedData({ schema: response.timeStampToken.content });
  const info = pkijs.TSTInfo.fromBER(
    new Uint8Array(signed.encapContentInfo.eContent!.valueBlock.valueHexView),
  );
  if (!sameBytes(info.messageImprint.hashedMessage.valueBlock.valueHexView, digest)) {
    throw new Error("the token time-stamps another digest");
  }
  if (!info.nonce || !sameBytes(info.nonce.valueBlock.valueHexView, nonce)) {
    throw new Error("the token does not carry the request's nonce");
  }
  const signer = signerOf(signed);
  if (!signer) throw new Error("the token's signature does not verify");
  const chain = trustedCas ? trustedChain(signer, certificatesOf(signed), trustedCas) : [signer];
  if (!chain) {
    throw new TsaRejection("the token is not signed by a time-stamping certificate of TSA_CA_FILE");
  }
  const token = new Uint8Array(response.timeStampToken.toSchema().toBER());
  return { token, genTime: info.genTime, response: der, chain };
}

const hashNames: Record<string, string> = {
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};

/**
 * The CMS signature check (RFC 5652 5.4): the messageDigest attribute is the hash of the TSTInfo,
 * and the signature over the DER SET of signed attributes verifies with a certificate of the token;
 * returns that certificate. Done with node:crypto because pkijs's SignedData.verify insists, for a
 * time-stamp token, on re-hashing the original datum, which a digest-only client does not have.
 */
function signerOf(signed: pkijs.SignedData): X509Certificate | undefined {
  const signer = signed.signerInfos[0];
  const hash = signer && hashNames[signer.digestAlgorithm.algorithmId];
  const attrs = signer?.signedAttrs;
  if (!signer || !hash || !attrs) return undefined;
  const content = new Uint8Array(signed.encapContentInfo.eContent!.getValue());
  const digest = attrs.attributes.find((a) => a.type === "1.2.840.113549.1.9.4")?.values[0];
  const expected = createHash(hash).update(content).digest();
  if (!digest || !Buffer.from(digest.valueBlock.valueHexView).equals(expected)) return undefined;
  const der = new Uint8Array(attrs.encodedValue);
  der[0] = 0x31; // signed as an explicit SET OF, stored with the [0] IMPLICIT tag
  const signature = signer.signature.valueBlock.valueHexView;
  return certificatesOf(signed).find((cert) => verify(hash, der, cert.publicKey, signature));
}

function certificatesOf(signed: pkijs.SignedData): X509Certificate[] {
  return (signed.certificates ?? []).flatMap((cert) =>
    cert instanceof pkijs.Certificate ? [new X509Certificate(Buffer.from(cert.toSchema().toBER()))] : [],
  );
}

const TIME_STAMPING = "1.3.6.1.5.5.7.3.8";

/**
 * The chain of a time-stamping certificate issued by a trusted CA, directly or through one carried
 * intermediate, from the signer to that CA; undefined when there is none.
 */
function trustedChain(
  signer: X509Certificate,
  carried: readonly X509Certificate[],
  roots: readonly X509Certificate[],
): X509Certificate[] | undefined {
  if (!(signer.keyUsage ?? []).includes(TIME_STAMPING)) return undefined;
  const issuedBy = (cert: X509Certificate, ca: X509Certificate) =>
    cert.checkIssued(ca) && cert.verify(ca.publicKey);
  const root = roots.find((ca) => issuedBy(signer, ca));
  if (root) return [signer, root];
  for (const mid of carried.filter((cert) => cert.ca && issuedBy(signer, cert))) {
    const midRoot = roots.find((ca) => issuedBy(mid, ca));
    if (midRoot) return [signer, mid, midRoot];
  }
  return undefined;
}

function imprint(digest: Uint8Array): pkijs.MessageImprint {
  return new pkijs.MessageImprint({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
    hashedMessage: new asn1js.OctetString({ valueHex: digest }),
  });
}

/** Integers are compared by value: DER may add a leading zero the request did not have. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const strip = (x: Uint8Array) =>
    Buffer.from(x)
      .toString("hex")
      .replace(/^(00)+/, "");
  return strip(a) === strip(b);
}

/** The anchor reference of a token: its SHA-256, hex. */
export const tokenReference = (token: Uint8Array): string => createHash("sha256").update(token).digest("hex");
