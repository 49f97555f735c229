import { hash } from "node:crypto";
import { batchSigningMessage, type ServiceBatchSignature } from "../../core/batch-signature.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Signer } from "../keys/ed25519.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex");

/**
 * A text's UTF-8 bytes and their RFC 6962 leaf hash (SHA-256 of 0x00 and the bytes), encoded
 * once into one buffer after the prefix and hashed in one call: no second copy of the bytes to
 * put the prefix before them, as `merkle.leafHash` of encoded text would make.
 */
export function leafOfText(text: string): { data: Buffer; leafHash: Buffer } {
  const prefixed = Buffer.allocUnsafe(1 + Buffer.byteLength(text));
  prefixed[0] = 0x00;
  prefixed.write(text, 1, "utf8");
  return { data: prefixed.subarray(1), leafHash: hash("sha256", prefixed, "buffer") };
}

/**
 * One service signature for many stamps: an RFC 6962 tree over the leaf hashes of their signed
 * payloads (`leafOfText`, in the given order), the root signed once (core/batch-signature.ts), and
 * for each stamp its leaf index and audit path. Ed25519 costs about 23 µs a signature here, which alone
 * would cap a core at ~43 000 stamps/s; hashing a leaf and its share of the nodes costs a tenth.
 */
export function signBatch(leafHashes: readonly Uint8Array[], service: Signer): ServiceBatchSignature[] {
  const tree = merkle.tree(leafHashes);
  const root = tree.root();
  const signature = service.sign(batchSigningMessage(leafHashes.length, root));
  const rootHex = hex(root);
  // Upper nodes are on many paths: each is written as hex once.
  const hexOf = new Map<Uint8Array, string>();
  const nodeHex = (node: Uint8Array) => {
    let text = hexOf.get(node);
    if (text === undefined) {
      text = hex(node);
      hexOf.set(node, text);
    }
    return text;
  };
  // Members in JCS order, so the stored text is written without sorting (canonical-members.ts).
  return leafHashes.map((_, leafIndex) => ({
    audit_path: tree.inclusionProof(leafIndex).map(nodeHex),
    leaf_index: leafIndex,
    root: rootHex,
    signature,
    tree_size: leafHashes.length,
  }));
}
