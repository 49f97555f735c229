import { hexToBytes } from "@noble/hashes/utils.js";
import { checkpointText, signatureLine } from "../../core/checkpoint.js";
import type { Signer } from "../keys/ed25519.js";
import type { StoredCheckpoint } from "./log-repository.js";
import type { LogTree } from "./log-tree.js";

const encoder = new TextEncoder();

/** `ed25519:<hex>` as the raw 32 bytes a signed note's key id and verifier key are made of. */
export const rawEd25519 = (publicKey: string): Uint8Array => hexToBytes(publicKey.slice("ed25519:".length));

/**
 * A C2SP checkpoint of `tree` at its current size, signed by `signer` (Ed25519) under the key name
 * `origin`: the transparency log's and the stamp log's (docs/log-tiles.md, docs/sigstore.md).
 */
export function signedCheckpoint(signer: Signer, origin: string, tree: LogTree, at: Date): StoredCheckpoint {
  const treeSize = tree.size;
  const root = tree.root(treeSize);
  const text = checkpointText({ origin, treeSize, rootHash: root });
  const signature = hexToBytes(signer.sign(encoder.encode(text)));
  const note = `${text}\n${signatureLine(origin, rawEd25519(signer.publicKey), signature)}`;
  return { treeSize, root, note, signedAt: at };
}
