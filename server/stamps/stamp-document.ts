import type { ContentHash } from "../../core/content-hash.js";
import type { components } from "../../gen/openapi/types.js";
import type { Signer } from "../keys/ed25519.js";
import type { Annotations } from "./annotations.js";
import { leafHashOfText, signBatch } from "./batch-signing.js";
import { CanonicalMembers, type UnsignedDocument } from "./canonical-members.js";
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

type Signatures = StampDocument["signatures"];

/** A signed document and its RFC 8785 text, as `stamp_json` stores it. */
export interface IssuedDocument {
  document: StampDocument;
  json: string;
}

/** A document before the service signs it, with the payload every signature covers. */
interface Draft {
  unsigned: UnsignedDocument;
  members: CanonicalMembers;
  /** The signed payload's text (core/payload.ts): the document without `signatures`, in JCS form. */
  payload: string;
  author: Signer | null;
}

/** A document drafted for a batch, with the RFC 6962 leaf hash of its payload: its leaf in the batch's tree. */
export type BatchDraft = Draft & { leafHash: Uint8Array };

/**
 * The signed `stampd.stamp/v1` document of a stamp made on its own: the service signs the JCS form
 * of everything but `signatures`, and the author identity, when there is one, signs the same bytes.
 */
export function issueDocument(facts: StampFacts, service: Signer, author: Signer | null): IssuedDocument {
  const d = draft(facts, service, author);
  const payload = Buffer.from(d.payload);
  return signed(d, { author: author?.sign(payload) ?? null, service: service.sign(payload) });
}

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
  return facts.map((f, i) => {
    const d = draft(f, service, authors[i] ?? null);
    return { ...d, leafHash: leafHashOfText(d.payload) };
  });
}

/** Signs a batch's drafts: one service signature over their Merkle root, in the given order. */
export function signDrafts(drafts: readonly BatchDraft[], service: Signer): IssuedDocument[] {
  if (drafts.length === 0) return [];
  const batch = signBatch(
    drafts.map((d) => d.leafHash),
    service,
  );
  return drafts.map((d, i) =>
    signed(d, {
      author: d.author?.sign(Buffer.from(d.payload)) ?? null,
      service: null,
      service_batch: batch[i]!,
    }),
  );
}

/** The draft's document with its signatures: the draft's own object completed, not a copy of it. */
function signed(d: Draft, signatures: Signatures): IssuedDocument {
  const document = d.unsigned as StampDocument;
  document.signatures = signatures;
  return { document, json: d.members.textWith(signatures) };
}

// A batch's stamps share one creation time: its text is written once, not once per stamp.
let lastTime = Number.NaN;
let lastText = "";
function timeText(time: Date): string {
  if (time.getTime() !== lastTime) {
    lastText = time.toISOString();
    lastTime = time.getTime();
  }
  return lastText;
}

function draft(facts: StampFacts, service: Signer, author: Signer | null): Draft {
  const { settings } = facts;
  const unsigned = {
    format: "stampd.stamp/v1" as const,
    stamp_id: facts.id,
    created_at: timeText(facts.createdAt),
    // Members in JCS order, as canonical-members.ts writes them; so are `signatures`.
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
  const members = new CanonicalMembers(unsigned);
  return { unsigned, members, payload: members.text(), author };
}
