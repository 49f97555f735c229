import { createHash } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { OID } from "./oids.js";

/** What a token states: the imprint of the datum, when, and its serial number. */
export interface TokenFacts {
  /** OID of the digest algorithm of `hashedMessage`. */
  digestOid: string;
  hashedMessage: Uint8Array;
  genTime: Date;
  /** Positive, unique per token (big-endian bytes). */
  serialNumber: Uint8Array;
}

/** The TSA's signing key and its certificate (DER). */
export interface TsaSigner {
  privateKey: CryptoKey;
  certificate: Uint8Array<ArrayBuffer>;
}

/**
 * A granted RFC 3161 TimeStampResp, DER: a CMS SignedData over the TSTInfo, signed with ECDSA
 * P-256 / SHA-256, carrying the TSA certificate and the ESS signing-certificate-v2 attribute that
 * binds the signature to it (RFC 3161 2.4.2, RFC 5816) — OpenSSL refuses tokens without it.
 */
export async function grantedResponse(facts: TokenFacts, signer: TsaSigner): Promise<Uint8Array> {
  const token = await timeStampToken(facts, signer);
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: token,
  });
  return new Uint8Array(response.toSchema().toBER());
}

async function timeStampToken(facts: TokenFacts, signer: TsaSigner): Promise<pkijs.ContentInfo> {
  const certificate = pkijs.Certificate.fromBER(signer.certificate);
  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: OID.stampdPolicy,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: facts.digestOid }),
      hashedMessage: new asn1js.OctetString({ valueHex: facts.hashedMessage }),
    }),
    serialNumber: new asn1js.Integer({ valueHex: facts.serialNumber }),
    genTime: facts.genTime,
  });
  const content = new Uint8Array(tstInfo.toSchema().toBER());
  const encapContentInfo = new pkijs.EncapsulatedContentInfo({ eContentType: OID.tstInfo });
  // Set after construction: pkijs's constructor splits an OCTET STRING into a constructed one
  // (BER), which DER forbids and Sigstore's verifiers do not read (they find no TSTInfo in it).
  encapContentInfo.eContent = new asn1js.OctetString({ valueHex: content });
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo,
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: certificate.issuer,
          serialNumber: certificate.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: signedAttributes(content, signer.certificate, facts.genTime),
        }),
      }),
    ],
    certificates: [certificate],
  });
  await signedData.sign(signer.privateKey, 0, "SHA-256", undefined, pkijs.getEngine().crypto ?? undefined);
  return new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
}

function signedAttributes(content: Uint8Array, certDer: Uint8Array, at: Date): pkijs.Attribute[] {
  const attribute = (type: string, value: asn1js.AsnType) => new pkijs.Attribute({ type, values: [value] });
  return [
    attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.tstInfo })),
    attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: sha256(content) })),
    attribute(OID.signingTime, new asn1js.UTCTime({ valueDate: at })),
    // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }; ESSCertIDv2 ::=
    // SEQUENCE { certHash OCTET STRING } with the default hash algorithm (SHA-256) left out, as DER wants.
    attribute(
      OID.signingCertificateV2,
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({
            value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: sha256(certDer) })] })],
          }),
        ],
      }),
    ),
  ];
}

const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());
