import { generateKeyPairSync } from "node:crypto";
import { signedPayload } from "../../core/payload.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";
import type { StampDocument } from "./helpers.js";

type Doc = Record<string, unknown> & StampDocument;
export type Mutation = [name: string, mutate: (doc: Doc) => void];

const flipHex = (hex: string) => (hex.endsWith("0") ? `${hex.slice(0, -1)}1` : `${hex.slice(0, -1)}0`);
const otherKey = () => ed25519Signer(generateKeyPairSync("ed25519").privateKey).publicKey;

/**
 * One change to each member of a signed stamp document (and to its annotations when present).
 * Every one of them must make the stamp invalid, on the server and offline.
 */
export const mutations: Mutation[] = [
  [
    "format",
    (d) => {
      d.format = "stampd.stamp/v2" as never;
    },
  ],
  [
    "stamp_id",
    (d) => {
      d.stamp_id = "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D";
    },
  ],
  [
    "created_at",
    (d) => {
      d.created_at = new Date(Date.parse(d.created_at) + 1).toISOString();
    },
  ],
  [
    "document.hash",
    (d) => {
      d.document.hash = flipHex(d.document.hash);
    },
  ],
  [
    "document.algorithm",
    (d) => {
      d.document.algorithm = "sha256";
    },
  ],
  [
    "document.size_bytes",
    (d) => {
      d.document.size_bytes = (d.document.size_bytes ?? 0) + 1;
    },
  ],
  [
    "document.version",
    (d) => {
      d.document.version = "9.9.9";
    },
  ],
  [
    "anchors: one removed",
    (d) => {
      d.anchors.pop();
    },
  ],
  [
    "anchors: reordered",
    (d) => {
      d.anchors.reverse();
    },
  ],
  [
    "anchors: one added",
    (d) => {
      d.anchors.push("ethereum");
    },
  ],
  [
    "trust_threshold",
    (d) => {
      d.trust_threshold = 0;
    },
  ],
  [
    "preset",
    (d) => {
      d.preset = "maximum";
    },
  ],
  [
    "storage_mode",
    (d) => {
      d.storage_mode = "remote" as never;
    },
  ],
  [
    "encryption",
    (d) => {
      d.encryption = "aes-256-gcm" as never;
    },
  ],
  [
    "fingerprint",
    (d) => {
      d.fingerprint = {
        standard_hash: `sha3-256:${d.document.hash}`,
        merkle_root: d.document.hash,
        chunk_count: 1,
        decomposition_method: "flat",
      };
    },
  ],
  [
    "author_public_key: another key",
    (d) => {
      d.author_public_key = otherKey();
    },
  ],
  [
    "author_public_key: removed (null)",
    (d) => {
      d.author_public_key = null;
    },
  ],
  [
    "service_public_key",
    (d) => {
      d.service_public_key = otherKey();
    },
  ],
  [
    "signatures.service",
    (d) => {
      d.signatures.service = flipHex(d.signatures.service ?? "0".repeat(128));
    },
  ],
  [
    "signatures.author",
    (d) => {
      d.signatures.author = flipHex(d.signatures.author ?? "0".repeat(128));
    },
  ],
  [
    "signatures.author: removed (null)",
    (d) => {
      d.signatures.author = null;
    },
  ],
  [
    "an extra member",
    (d) => {
      d.comment = "added later";
    },
  ],
  [
    "a member removed",
    (d) => {
      delete (d as Partial<Doc>).encryption;
    },
  ],
  [
    "description",
    (d) => {
      d.description = `${d.description ?? ""} (amended)`;
    },
  ],
  [
    "description removed",
    (d) => {
      delete (d as Partial<Doc>).description;
    },
  ],
  [
    "metadata value",
    (d) => {
      d.metadata = { ...d.metadata, owner: "mallory" };
    },
  ],
  [
    "metadata key added",
    (d) => {
      d.metadata = { ...d.metadata, extra: "1" };
    },
  ],
  [
    "metadata removed",
    (d) => {
      delete (d as Partial<Doc>).metadata;
    },
  ],
];

/** Applies a mutation to a copy; the original stays intact. */
export function tampered(doc: StampDocument, mutate: (doc: Doc) => void): StampDocument {
  const copy = structuredClone(doc) as Doc;
  mutate(copy);
  return copy;
}

/**
 * A stamp document signed by a key the verifier does not hold, as a forger would make it: it is
 * internally consistent (the signature verifies against the embedded key).
 */
export function forged(doc: StampDocument): StampDocument {
  const signer = ed25519Signer(generateKeyPairSync("ed25519").privateKey);
  const unsigned = { ...structuredClone(doc), service_public_key: signer.publicKey, author_public_key: null };
  return { ...unsigned, signatures: { service: signer.sign(signedPayload(unsigned)), author: null } };
}
