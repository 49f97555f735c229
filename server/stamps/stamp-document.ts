import type { components } from "../../gen/openapi/types.js";
import { signedPayload } from "../../sdk/src/verify/payload.js";
import type { ContentHash } from "../hashing/algorithms.js";
import type { Signer } from "../keys/ed25519.js";
import type { Annotations } from "./annotations.js";
import type { StampDocument } from "./stamp-repository.js";
import type { StampSettings } from "./stamp-settings.js";

export type StampFingerprint = components["schemas"]["StampFingerprint"];

/** Everything a stamp document states, before it is signed. */
export interface StampFacts {
  id: string;
  createdAt: Date;
  hash: ContentHash;
  /** Null for a stamp of a client-supplied hash. */
  sizeBytes: number | null;
  settings: StampSettings;
  fingerprint: StampFingerprint | null;
  annotations: Annotations;
}

/**
 * The signed `stampd.stamp/v1` document: the service signs the JCS form of everything but
 * `signatures`, and the author identity, when there is one, signs the same bytes.
 */
export function issueDocument(facts: StampFacts, service: Signer, author: Signer | null): StampDocument {
  const { settings } = facts;
  const unsigned = {
    format: "stampd.stamp/v1" as const,
    stamp_id: facts.id,
    created_at: facts.createdAt.toISOString(),
    document: {
      hash: facts.hash.hex,
      algorithm: facts.hash.algorithm,
      size_bytes: facts.sizeBytes,
      version: settings.version,
    },
    anchors: settings.anchors,
    trust_threshold: settings.trustThreshold,
    preset: settings.preset,
    storage_mode: settings.storageMode,
    encryption: settings.encryption,
    fingerprint: facts.fingerprint,
    author_public_key: author?.publicKey ?? null,
    service_public_key: service.publicKey,
    ...facts.annotations,
  };
  const payload = signedPayload(unsigned);
  return {
    ...unsigned,
    signatures: { service: service.sign(payload), author: author?.sign(payload) ?? null },
  };
}
