import { createPublicKey } from "node:crypto";
import type { components } from "../gen/openapi/types.js";

type RingKey = components["schemas"]["RingKey"];
type TrustedRootJson = components["schemas"]["SigstoreTrustedRoot"];

/** What a Sigstore bundle is checked against: the deployment's trusted root and key ring (GET /keys). */
export interface SigstoreTrust {
  root: TrustedRootJson;
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

/**
 * Checks a Sigstore bundle of a stamp with sigstore-js's own Verifier, as docs/sigstore.md gives a
 * third party: the trusted root, the `sigstore` keys of the ring by key id (each for its period,
 * ended by its revocation), one tlog entry and one RFC 3161 timestamp required, no CT log. Throws
 * sigstore-js's error unless the bundle holds for `document`. sigstore-js is loaded on first use.
 */
export async function verifySigstoreBundle(
  bundle: unknown,
  document: Uint8Array,
  { root, ring }: SigstoreTrust,
): Promise<void> {
  const [{ bundleFromJSON }, { TrustedRoot }, { toSignedEntity, toTrustMaterial, Verifier }] =
    await Promise.all([
      import("@sigstore/bundle"),
      import("@sigstore/protobuf-specs"),
      import("@sigstore/verify"),
    ]);
  const keys = Object.fromEntries(
    ring
      .filter((k) => k.kind === "sigstore" && k.public_key_pem)
      .map((k) => {
        const end = periodEnd(k);
        const rawBytes = createPublicKey(k.public_key_pem!).export({ type: "spki", format: "der" });
        return [k.key_id, { rawBytes, validFor: { start: secondBelow(k.not_before), ...(end && { end }) } }];
      }),
  );
  const material = toTrustMaterial(TrustedRoot.fromJSON(root), keys as never);
  const verifier = new Verifier(material, { tlogThreshold: 1, timestampThreshold: 1, ctlogThreshold: 0 });
  verifier.verify(toSignedEntity(bundleFromJSON(bundle), Buffer.from(document)));
}
