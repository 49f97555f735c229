import type { ContentHash } from "../../core/content-hash.js";
import type { components } from "../../gen/openapi/types.js";
import type { Signer } from "../keys/ed25519.js";
import type { Annotations } from "./annotations.js";
import { leafOfText, signBatch } from "./batch-signing.js";
import { CanonicalMembers } from "./canonical-members.js";
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

type Unsigned = Omit<StampDocument, "signatures">;
type Signatures = StampDocument["signatures"];

/** A signed document and its RFC 8785 text, as `stamp_json` stores it. */
export interface IssuedDocument {
  document: StampDocument;
  json: string;
}

/** A document before the service signs it, with the payload bytes every signature covers. */
interface Draft {
  unsigned: Unsigned;
  members: CanonicalMembers;
  payload: Uint8Array;
  /** The RFC 6962 leaf hash of `payload`, its leaf in a batch signature's tree. */
  leafHash: Uint8Array;
  author: Signer | null;
}

/**
 * The signed `stampd.stamp/v1` document of a stamp made on its own: the service signs the JCS form
 * of everything but `signatures`, and the author identity, when there is one, signs the same bytes.
 */
export function issueDocument(facts: StampFacts, service: Signer, author: Signer | null): IssuedDocument {
  const d = draft(facts, service, author);
  return signed(d, { author: author?.sign(d.payload) ?? null, service: service.sign(d.payload) });
}

/** A document drafted for a batch: the per-stamp work of issuing it, before the batch is signed. */
export type BatchDraft = Draft;

/**
 * The documents of stamps made together (a batch call): one service signature over the Merkle root
 * of their payloads, each document carrying its path to that root (`signatures.service_batch`).
 * Author signatures stay one per stamp. `authors[i]` signs `facts[i]`.
 */
export function issueBatch(
  facts: readonly StampFacts[],
  service: Signer,
  authors: readonly (Signer | null)[],
): IssuedDocument[] {
  return signDrafts(draftBatch(facts, service, authors), service);
}

/** The drafts of `issueBatch`, which a caller may make in parts (batch progress) and sign together. */
export function draftBatch(
  facts: readonly StampFacts[],
  service: Signer,
  authors: readonly (Signer | null)[],
): BatchDraft[] {
  return facts.map((f, i) => draft(f, service, authors[i] ?? null));
}

/** Signs a batch's drafts: one service signature over their Merkle root, in the given order. */
export function signDrafts(drafts: readonly BatchDraft[], service: Signer): IssuedDocument[] {
  if (drafts.length === 0) return [];
  const batch = signBatch(
    drafts.map((d) => d.leafHash),
    service,
  );
  return drafts.map((d, i) =>
    signed(d, { author: d.author?.sign(d.payload) ?? null, service: null, service_batch: batch[i]! }),
  );
}

function signed(d: Draft, signatures: Signatures): IssuedDocument {
  return { document: { ...d.unsigned, signatures }, json: d.members.textWith(signatures) };
}

function draft(facts: StampFacts, service: Signer, author: Signer | null): Draft {
  const { settings } = facts;
  const unsigned = {
    format: "stampd.stamp/v1" as const,
    stamp_id: facts.id,
    created_at: facts.createdAt.toISOString(),
    // Members in JCS order, written without sorting (canonical-members.ts); so are `signatures`.
    document: {
      algorithm: facts.hash.algorithm,
      hash: facts.hash.hex,
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
  // The signed payload (core/payload.ts): the document without `signatures`, in JCS form.
  const members = new CanonicalMembers(unsigned, "signatures");
  const { data, leafHash } = leafOfText(members.text());
  return { unsigned, members, payload: data, leafHash, author };
}
