import { toBase64 } from "../../../core/base64.js";
import { verifyStampProof } from "../../../core/stamp-proof.js";
import type { components } from "../../../gen/openapi/types.js";
import type { StampdClient } from "../client.js";
import { ConflictError, NotFoundError, UnprocessableEntityError } from "../internal/errors.js";
import type { RequestOptions } from "../internal/request.js";
import { verifyRfc3161Anchor } from "./anchor-token.js";
import { PROOF_BUNDLE_FORMAT, type ProofBundle, ProofBundleError } from "./bundle.js";
import { checkLogConsistency } from "./log-consistency.js";
import { readStampOpenTimestamps } from "./opentimestamps.js";

type Schemas = components["schemas"];

export interface FetchBundleOptions extends RequestOptions {
  /** The REST base URL the client talks to, recorded as the bundle's `service_url`. */
  serviceUrl: string;
  /** The bundle held so far: `fetchProofBundle` then upgrades it (see there). */
  previous?: ProofBundle | undefined;
  /** The stamp as just read (`stamps.waitFor()`'s answer): it is not read again. */
  stamp?: Schemas["StampResponse"] | undefined;
}

/**
 * Gathers a proof bundle for a stamp: the stamp, its proof (with the outside TSA's token of a
 * confirmed `rfc3161` anchor), the log's verifier key, the stamp as an RFC 3161 token of the
 * service's TSA and the TSA's CA (parts not yet available are null), and for a `bitcoin` anchor
 * the OpenTimestamps proof once a calendar has answered (it must lead from the stamped hash to
 * the batch root).
 *
 * Given the `previous` bundle it is an upgrade, which never weakens what the file held: the stamp
 * document must be the same one; a new proof must verify (leaf, audit path, batch signature, log
 * inclusion under the key the previous bundle held, and the signature of an anchor token over the
 * batch root); a larger checkpoint replaces the held one
 * only with a consistency proof that verifies between them, kept in `log.consistency`. A part the
 * service no longer gives (a proof it lost) keeps its previous value. Throws `ProofBundleError`
 * when the service's answers contradict the bundle.
 *
 * @example
 * const stamp = await client.stamps.waitFor(id, { until: "anchored" });
 * const bundle = await fetchProofBundle(client, stamp.stamp_id, { serviceUrl: "http://localhost:8080" });
 * // later
 * const newer = await fetchProofBundle(client, bundle.stamp.stamp_id, { serviceUrl: bundle.service_url, previous: bundle });
 */
export async function fetchProofBundle(
  client: StampdClient,
  stampId: string,
  options: FetchBundleOptions,
): Promise<ProofBundle> {
  const { previous, serviceUrl, stamp: given, ...request } = options;
  const stamp = given ?? (await client.stamps.get(stampId, request));
  if (previous && JSON.stringify(stamp.stamp_json) !== JSON.stringify(previous.stamp.stamp_json)) {
    throw new ProofBundleError(`the service's stamp ${stampId} is not the stamp document the bundle holds`);
  }
  const proof = (await absentOn409(client.stamps.proof(stampId, request))) ?? previous?.proof ?? null;
  const verifierKey =
    previous?.log?.verifier_key ?? (proof?.log ? (await client.log.info(request)).verifier_key : null);
  if (proof && proof !== previous?.proof) await checkNewProof(stamp, proof, verifierKey);
  const log = verifierKey && proof?.log ? await logPart(client, verifierKey, proof, previous, request) : null;
  const ots =
    (proof && (await openTimestampsPart(client, stamp, proof, request))) ?? previous?.opentimestamps;
  return {
    format: PROOF_BUNDLE_FORMAT,
    saved_at: new Date().toISOString(),
    service_url: serviceUrl,
    stamp,
    proof: log?.keepProof ?? proof,
    log: log?.part ?? previous?.log ?? null,
    timestamp: proof ? await timestampPart(client, stampId, request) : (previous?.timestamp ?? null),
    ...(ots !== undefined && { opentimestamps: ots }),
  };
}

/**
 * The `.ots` of a stamp with a `bitcoin` anchor, base64; undefined without that anchor or while no
 * calendar has answered (404, 409), or for a stamp OpenTimestamps cannot start from (422).
 */
async function openTimestampsPart(
  client: StampdClient,
  stamp: Schemas["StampResponse"],
  proof: Schemas["StampProof"],
  request: RequestOptions,
): Promise<string | undefined> {
  if (!stamp.stamp_json.anchors.includes("bitcoin")) return undefined;
  const file = await client.stamps.openTimestamps(stamp.stamp_id, request).catch((err: unknown) => {
    if (
      err instanceof ConflictError ||
      err instanceof NotFoundError ||
      err instanceof UnprocessableEntityError
    )
      return undefined;
    throw err;
  });
  if (!file) return undefined;
  try {
    readStampOpenTimestamps(file, stamp.stamp_json.document.hash, proof.batch.root);
  } catch (err) {
    throw new ProofBundleError(`the service's OpenTimestamps proof does not hold: ${(err as Error).message}`);
  }
  return toBase64(file);
}

async function checkNewProof(
  stamp: Schemas["StampResponse"],
  proof: Schemas["StampProof"],
  verifierKey: string | null,
): Promise<void> {
  const check = await verifyStampProof(stamp.stamp_json, proof, {
    trustedLogKeys: verifierKey && proof.log ? [verifierKey] : undefined,
  });
  if (!check.valid)
    throw new ProofBundleError(`the service's proof does not verify: ${check.failures.join("; ")}`);
  const anchor = proof.anchors.find((a) => a.type === "rfc3161");
  if (anchor?.status !== "confirmed" || anchor.evidence === undefined) return;
  // The outside TSA's CA is not known here: its token's issuer is the verifier's to check.
  await verifyRfc3161Anchor(proof).catch((err: Error) => {
    throw new ProofBundleError(`the service's rfc3161 anchor token does not verify: ${err.message}`);
  });
}

/**
 * The log part for `proof`: unchanged when the checkpoint is the one held; with a consistency
 * proof from the held checkpoint when it is larger. A smaller one than held (a service behind a
 * stale replica) keeps the held proof.
 */
async function logPart(
  client: StampdClient,
  verifierKey: string,
  proof: Schemas["StampProof"],
  previous: ProofBundle | undefined,
  request: RequestOptions,
): Promise<{ part: Schemas["ProofBundleLog"]; keepProof?: Schemas["StampProof"] }> {
  const held = previous?.proof?.log;
  const fresh = { verifier_key: verifierKey, previous_checkpoint: null, consistency: null };
  if (!held || !previous) return { part: fresh };
  if (proof.log!.tree_size === held.tree_size) return { part: previous.log ?? fresh };
  if (proof.log!.tree_size < held.tree_size)
    return { part: previous.log ?? fresh, keepProof: previous.proof! };
  const consistency = await client.log.consistency(held.tree_size, proof.log!.tree_size, request);
  const problem = await checkLogConsistency(held.checkpoint, proof.log!.checkpoint, consistency, [
    verifierKey,
  ]);
  if (problem)
    throw new ProofBundleError(`the log's new checkpoint does not extend the held one: ${problem}`);
  return { part: { verifier_key: verifierKey, previous_checkpoint: held.checkpoint, consistency } };
}

/** The RFC 3161 token and the CA to check it; null when the service has none (a BLAKE3 stamp). */
async function timestampPart(
  client: StampdClient,
  stampId: string,
  request: RequestOptions,
): Promise<Schemas["ProofBundleTimestamp"] | null> {
  const token = await absentOn409(client.stamps.timestamp(stampId, request)).catch((err: unknown) => {
    if (err instanceof UnprocessableEntityError) return null;
    throw err;
  });
  if (!token) return null;
  return { token: toBase64(token), ca_pem: await client.log.tsaCertificate(request) };
}

/** A part the service does not have yet (409 `stamp_not_confirmed`) is null. */
async function absentOn409<T>(answer: Promise<T>): Promise<T | null> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof ConflictError) return null;
    throw err;
  }
}
