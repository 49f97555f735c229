import { webcrypto } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const subtle = webcrypto.subtle as SubtleCrypto;
const EC_P256 = { name: "ECDSA", namedCurve: "P-256" } as const;

// Object identifiers (RFC 5280, RFC 3161).
const OID = {
  commonName: "2.5.4.3",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  timeStamping: "1.3.6.1.5.5.7.3.8",
} as const;

/** The service TSA's key and certificates, PEM. */
export interface IssuedTsaKey {
  keyPem: string;
  certPem: string;
  caPem: string;
}

/**
 * A fresh ECDSA P-256 TSA key with its certificate (`extendedKeyUsage` critical `timeStamping`, as
 * RFC 3161 section 2.3 requires) issued by a fresh self-signed CA. The CA's private key is
 * dropped once it has signed: nothing else is ever issued, so it need not exist.
 */
export async function createTsaCredentials(name: string, now: Date): Promise<IssuedTsaKey> {
  const ca = (await subtle.generateKey(EC_P256, true, ["sign", "verify"])) as CryptoKeyPair;
  const tsa = (await subtle.generateKey(EC_P256, true, ["sign", "verify"])) as CryptoKeyPair;
  const validity = { notBefore: new Date(now.getTime() - 3_600_000), notAfter: addYears(now, 20) };
  const caCert = await certificate({
    subject: `${name} CA`,
    issuer: `${name} CA`,
    publicKey: ca.publicKey,
    issuerPublicKey: ca.publicKey,
    signingKey: ca.privateKey,
    extensions: [basicConstraints(true), keyUsage(0x06)],
    ...validity,
  });
  const tsaCert = await certificate({
    subject: `${name} TSA`,
    issuer: `${name} CA`,
    publicKey: tsa.publicKey,
    issuerPublicKey: ca.publicKey,
    signingKey: ca.privateKey,
    extensions: [basicConstraints(false), keyUsage(0x80), timeStampingOnly()],
    ...validity,
  });
  const pkcs8 = new Uint8Array(await subtle.exportKey("pkcs8", tsa.privateKey));
  return {
    keyPem: pem("PRIVATE KEY", pkcs8),
    certPem: pem("CERTIFICATE", tsaCert),
    caPem: pem("CERTIFICATE", caCert),
  };
}

interface CertificateSpec {
  subject: string;
  issuer: string;
  publicKey: CryptoKey;
  /** The issuer's key, named by the authorityKeyIdentifier: a verifier holding several CAs finds it. */
  issuerPublicKey: CryptoKey;
  signingKey: CryptoKey;
  extensions: pkijs.Extension[];
  notBefore: Date;
  notAfter: Date;
}

async function certificate(spec: CertificateSpec): Promise<Uint8Array> {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ valueHex: positiveSerial() });
  cert.subject.typesAndValues.push(...distinguishedName(spec.subject));
  cert.issuer.typesAndValues.push(...distinguishedName(spec.issuer));
  cert.notBefore.value = spec.notBefore;
  cert.notAfter.value = spec.notAfter;
  await cert.subjectPublicKeyInfo.importKey(spec.publicKey);
  const authorityKeyId = new pkijs.AuthorityKeyIdentifier({
    keyIdentifier: new asn1js.OctetString({ valueHex: await keyIdentifier(spec.issuerPublicKey) }),
  });
  cert.extensions = [
    ...spec.extensions,
    new pkijs.Extension({
      extnID: OID.subjectKeyIdentifier,
      extnValue: new asn1js.OctetString({ valueHex: await keyIdentifier(spec.publicKey) }).toBER(),
    }),
    new pkijs.Extension({
      extnID: OID.authorityKeyIdentifier,
      extnValue: authorityKeyId.toSchema().toBER(),
    }),
  ];
  await cert.sign(spec.signingKey, "SHA-256");
  return new Uint8Array(cert.toSchema().toBER());
}

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING. */
async function keyIdentifier(publicKey: CryptoKey): Promise<ArrayBuffer> {
  const info = new pkijs.PublicKeyInfo();
  await info.importKey(publicKey);
  return subtle.digest("SHA-1", new Uint8Array(info.subjectPublicKey.valueBlock.valueHexView));
}

function distinguishedName(commonName: string): pkijs.AttributeTypeAndValue[] {
  return [
    new pkijs.AttributeTypeAndValue({
      type: OID.commonName,
      value: new asn1js.Utf8String({ value: commonName }),
    }),
  ];
}

function basicConstraints(cA: boolean): pkijs.Extension {
  return new pkijs.Extension({
    extnID: OID.basicConstraints,
    critical: true,
    extnValue: new pkijs.BasicConstraints({ cA }).toSchema().toBER(),
  });
}

/** keyUsage bits as the first byte of the BIT STRING: 0x80 digitalSignature, 0x06 keyCertSign + cRLSign. */
function keyUsage(bits: number): pkijs.Extension {
  const unused = bits & 0x06 ? 1 : 7;
  return new pkijs.Extension({
    extnID: OID.keyUsage,
    critical: true,
    extnValue: new asn1js.BitString({ valueHex: Uint8Array.of(bits), unusedBits: unused }).toBER(),
  });
}

function timeStampingOnly(): pkijs.Extension {
  return new pkijs.Extension({
    extnID: OID.extKeyUsage,
    critical: true,
    extnValue: new pkijs.ExtKeyUsage({ keyPurposes: [OID.timeStamping] }).toSchema().toBER(),
  });
}

/** 127 random bits: positive and at most 20 octets (RFC 5280 4.1.2.2). */
function positiveSerial(): Uint8Array {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f;
  bytes[0]! |= 0x01;
  return bytes;
}

const addYears = (at: Date, years: number) =>
  new Date(Date.UTC(at.getUTCFullYear() + years, at.getUTCMonth(), at.getUTCDate()));

export function pem(label: string, der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString("base64")
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
