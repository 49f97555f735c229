import type { components } from "../../../gen/openapi/types.js";

type RingKey = components["schemas"]["RingKey"];
type TrustedRootJson = components["schemas"]["SigstoreTrustedRoot"];

/** What a Sigstore bundle is checked against: the deployment's trusted root and key ring (`GET /keys`). */
export interface SigstoreTrust {
  /** `GET /sigstore/trusted_root.json`. */
  root: TrustedRootJson;
  /** The `keys` of `GET /keys` (its `sigstore` keys are the ones a bundle's hint names). */
  ring: readonly RingKey[];
}

/** Whether a parsed JSON value is a Sigstore bundle (any version), by its media type. */
export const isSigstoreBundle = (value: unknown): boolean =>
  typeof (value as { mediaType?: unknown } | null)?.mediaType === "string" &&
  (value as { mediaType: string }).mediaType.startsWith("application/vnd.dev.sigstore.bundle");

/** A key's period starts at its second: RFC 3161 times as Sigstore reads them are whole seconds. */
const secondBelow = (iso: string) => new Date(Math.floor(Date.parse(iso) / 1000) * 1000);

/** The end of a key's period: its retirement or its revocation, whichever came first. */
function periodEnd(key: RingKey): Date | undefined {
  const ends = [key.not_after, key.revoked_at].filter((t): t is string => t !== undefined).sort();
  return ends[0] === undefined ? undefined : new Date(ends[0]);
}

/** A PEM SubjectPublicKeyInfo's DER bytes. */
const pemDer = (pem: string): Uint8Array =>
  Uint8Array.from(atob(pem.replace(/-----[^-]+-----|\s/g, "")), (c) => c.charCodeAt(0));

/**
 * sigstore-js, loaded on first use under names a browser bundler does not follow: it needs Node's
 * crypto, and pages that load the SDK never verify a Sigstore bundle.
 */
async function sigstoreJs() {
  const load = (name: string) => import(name);
  const [bundle, specs, verify] = await Promise.all([
    load("@sigstore/bundle") as Promise<typeof import("@sigstore/bundle")>,
    load("@sigstore/protobuf-specs") as Promise<typeof import("@sigstore/protobuf-specs")>,
    load("@sigstore/verify") as Promise<typeof import("@sigstore/verify")>,
  ]);
  return { ...bundle, ...specs, ...verify };
}

export interface SigstoreVerifyOptions {
  /**
   * How many RFC 3161 timestamps must verify (sigstore-js's `timestampThreshold`); default 1.
   * 2 requires the outside TSA's (`TSA_URL`) besides the service's own, when the bundle has it.
   * Every timestamp a bundle carries must verify whatever the threshold.
   */
  timestampThreshold?: number;
}

/**
 * Checks a stamp's Sigstore bundle (`stamps.sigstoreBundle()`, docs/sigstore.md) offline with
 * sigstore-js's own Verifier (Node): the trusted root, the `sigstore` keys of the ring by key id
 * (each for its period, ended by its revocation), one tlog entry and one RFC 3161 timestamp
 * required (or `options.timestampThreshold`), no CT log. Rejects with sigstore-js's error unless
 * the bundle holds for `document`.
 *
 * @example
 * const bundle = await client.stamps.sigstoreBundle(stampId);
 * const trust = { root: await client.log.sigstoreTrustedRoot(), ring: (await client.log.keyRing()).keys };
 * await verifySigstoreBundle(bundle, await readFile("contract.pdf"), trust); // pin trust once, in practice
 */
export async function verifySigstoreBundle(
  bundle: unknown,
  document: Uint8Array,
  { root, ring }: SigstoreTrust,
  { timestampThreshold = 1 }: SigstoreVerifyOptions = {},
): Promise<void> {
  const { bundleFromJSON, TrustedRoot, toSignedEntity, toTrustMaterial, Verifier } = await sigstoreJs();
  const keys = Object.fromEntries(
    ring
      .filter((k) => k.kind === "sigstore" && k.public_key_pem)
      .map((k) => {
        const end = periodEnd(k);
        const validFor = { start: secondBelow(k.not_before), ...(end && { end }) };
        return [k.key_id, { rawBytes: pemDer(k.public_key_pem!), validFor }];
      }),
  );
  const material = toTrustMaterial(TrustedRoot.fromJSON(root), keys as never);
  const verifier = new Verifier(material, { tlogThreshold: 1, timestampThreshold, ctlogThreshold: 0 });
  // sigstore-js types its bytes as Node's Buffer; it reads any Uint8Array alike.
  const artifact = document as Parameters<typeof toSignedEntity>[1];
  verifier.verify(toSignedEntity(bundleFromJSON(bundle), artifact));
}
