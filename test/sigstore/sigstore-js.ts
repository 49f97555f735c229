import type { components } from "../../gen/openapi/types.js";
import { type SigstoreTrust, verifySigstoreBundle } from "../../sdk/src/bundle/sigstore-bundle.js";

export type Bundle = components["schemas"]["SigstoreBundle"];
export type TrustedRootJson = components["schemas"]["SigstoreTrustedRoot"];
export type RingKey = components["schemas"]["RingKey"];
export type { SigstoreTrust };

/**
 * sigstore-js's own Verifier, unmodified, as docs/sigstore.md gives it to a third party and
 * `stampd verify` runs it (cli/sigstore-bundle.ts). Rejects unless the bundle holds for `document`.
 */
export const sigstoreVerify = (
  bundle: unknown,
  document: string,
  trust: SigstoreTrust,
  timestampThreshold = 1,
): Promise<void> => verifySigstoreBundle(bundle, Buffer.from(document), trust, { timestampThreshold });

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
