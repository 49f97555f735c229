import { readFile } from "node:fs/promises";
import type { components } from "../gen/openapi/types.js";
import { type SigstoreTrust, verifySigstoreBundle } from "../sdk/src/bundle/sigstore-bundle.js";
import { clientFor, type RemoteFlags } from "./client.js";
import { UsageError } from "./errors.js";

type RingKey = components["schemas"]["RingKey"];

export interface SigstoreVerifyOptions extends RemoteFlags {
  online?: boolean;
  trustedRoot?: string;
}

/**
 * `stampd verify <bundle>.sigstore.json <document>`: a Sigstore bundle of a stamp (docs/sigstore.md)
 * checked with sigstore-js against the trusted root and key ring given as files (`--trusted-root`,
 * `--key-ring`), or with `--online` those the named service publishes now. Exit 0 valid, 1 invalid.
 */
export async function verifySigstoreFile(
  bundle: unknown,
  document: Uint8Array | undefined,
  opts: SigstoreVerifyOptions,
  keyRing: RingKey[] | undefined,
): Promise<void> {
  if (!document) throw new UsageError("a Sigstore bundle is verified for its document: give the document");
  const trust = await trustOf(opts, keyRing);
  let failure: string | undefined;
  try {
    await verifySigstoreBundle(bundle, document, trust);
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
  }
  if (opts.json) console.log(JSON.stringify({ valid: !failure, ...(failure && { failure }) }, null, 2));
  else
    console.log(
      failure
        ? `invalid: the Sigstore bundle does not hold for the document: ${failure}`
        : "valid: the Sigstore bundle holds for the document (sigstore-js: signature, stamp log inclusion and checkpoint, RFC 3161 timestamp)",
    );
  process.exitCode = failure ? 1 : 0;
}

async function trustOf(opts: SigstoreVerifyOptions, keyRing: RingKey[] | undefined): Promise<SigstoreTrust> {
  if (opts.online) {
    const client = clientFor(opts);
    const ring = keyRing ?? (await client.log.keyRing()).keys;
    return { root: await client.log.sigstoreTrustedRoot(), ring };
  }
  if (!opts.trustedRoot || !keyRing)
    throw new UsageError(
      "a Sigstore bundle is checked against the deployment's trusted root and keys: give --trusted-root (GET /sigstore/trusted_root.json) and --key-ring (GET /keys), or --online",
    );
  const text = await readFile(opts.trustedRoot, "utf8").catch((err: Error) => {
    throw new UsageError(`cannot read ${opts.trustedRoot}: ${err.message}`);
  });
  try {
    return { root: JSON.parse(text), ring: keyRing };
  } catch {
    throw new UsageError(`--trusted-root ${opts.trustedRoot}: not JSON`);
  }
}
