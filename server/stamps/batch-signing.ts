import { batchSigningMessage, type ServiceBatchSignature } from "../../core/batch-signature.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Signer } from "../keys/ed25519.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex");

/**
 * One service signature for many stamps: an RFC 6962 tree over the leaf hashes of their signed
 * payloads (in the given order), the root signed once (core/batch-signature.ts), and for
 * each stamp its leaf index and audit path. Ed25519 costs about 23 µs a signature here, which alone
 * would cap a core at ~43 000 stamps/s; hashing a leaf and its share of the nodes costs a tenth.
 */
export function signBatch(payloads: readonly Uint8Array[], service: Signer): ServiceBatchSignature[] {
  const tree = merkle.tree(payloads.map((p) => merkle.leafHash(p)));
  const root = tree.root();
  const signature = service.sign(batchSigningMessage(payloads.length, root));
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
  return payloads.map((_, leafIndex) => ({
    audit_path: tree.inclusionProof(leafIndex).map(nodeHex),
    leaf_index: leafIndex,
    root: rootHex,
    signature,
    tree_size: payloads.length,
  }));
}
