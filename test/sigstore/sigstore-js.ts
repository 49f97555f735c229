import { createPublicKey } from "node:crypto";
import { bundleFromJSON } from "@sigstore/bundle";
import { TrustedRoot } from "@sigstore/protobuf-specs";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import type { components } from "../../gen/openapi/types.js";

export type Bundle = components["schemas"]["SigstoreBundle"];
export type TrustedRootJson = components["schemas"]["SigstoreTrustedRoot"];
export type RingKey = components["schemas"]["RingKey"];

/** What a verifier pins: the trusted root and the key ring (GET /keys). */
export interface SigstoreTrust {
  root: TrustedRootJson;
  ring: RingKey[];
}

/** A key's period starts at its second: RFC 3161 times as Sigstore reads them are whole seconds. */
const secondBelow = (iso: string) => new Date(Math.floor(Date.parse(iso) / 1000) * 1000);

/**
 * sigstore-js's own Verifier, unmodified, as docs/sigstore.md gives it to a third party: the
 * deployment's trusted root, the `sigstore` keys of GET /keys by key id, one tlog entry and one
 * RFC 3161 timestamp required, no CT log. Throws unless the bundle holds for `document`.
 */
export function sigstoreVerify(bundle: unknown, document: string, { root, ring }: SigstoreTrust): void {
  const keys = Object.fromEntries(
    ring
      .filter((k) => k.kind === "sigstore")
      .map((k) => [
        k.key_id,
        {
          rawBytes: createPublicKey(k.public_key_pem!).export({ type: "spki", format: "der" }),
          validFor: { start: secondBelow(k.not_before), ...(k.not_after && { end: new Date(k.not_after) }) },
        },
      ]),
  );
  const material = toTrustMaterial(TrustedRoot.fromJSON(root), keys as never);
  const verifier = new Verifier(material, { tlogThreshold: 1, timestampThreshold: 1, ctlogThreshold: 0 });
  verifier.verify(toSignedEntity(bundleFromJSON(bundle), Buffer.from(document)));
}

/** GET `path` of `baseUrl` as JSON, failing on any other status than 200. */
export async function getJson<T>(baseUrl: string, path: string): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** The trust anchors a server publishes now. */
export async function publishedTrust(baseUrl: string): Promise<SigstoreTrust> {
  const root = await getJson<TrustedRootJson>(baseUrl, "/sigstore/trusted_root.json");
  const ring = (await getJson<{ keys: RingKey[] }>(baseUrl, "/keys")).keys;
  return { root, ring };
}
