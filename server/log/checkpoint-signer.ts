import { hexToBytes } from "@noble/hashes/utils.js";
import { checkpointText, ed25519KeyId, signatureLine } from "../../core/checkpoint.js";
import type { Signer } from "../keys/ed25519.js";
import type { StoredCheckpoint } from "./log-repository.js";
import type { LogTree } from "./log-tree.js";

const encoder = new TextEncoder();

/** `ed25519:<hex>` as the raw 32 bytes a signed note's key id and verifier key are made of. */
export const rawEd25519 = (publicKey: string): Uint8Array => hexToBytes(publicKey.slice("ed25519:".length));

/** The key id (4 bytes) of a signed note's last signature line. */
export function noteKeyHint(note: string): Buffer {
  const signature = note.trimEnd().split("\n").at(-1)?.split(" ").at(-1) ?? "";
  return Buffer.from(signature, "base64").subarray(0, 4);
}

/** Whether `note`'s (last) signature line carries the key id of `signer` under `origin`. */
export const signedBy = (note: string, signer: Signer, origin: string): boolean =>
  noteKeyHint(note).equals(ed25519KeyId(origin, rawEd25519(signer.publicKey)));

/**
 * A C2SP checkpoint of `tree`'s first `treeSize` entries, signed by `signer` (Ed25519) under the
 * key name `origin` (docs/sigstore.md).
 */
export function signedCheckpoint(
  signer: Signer,
  origin: string,
  tree: LogTree,
  treeSize: number,
  at: Date,
): StoredCheckpoint {
  const root = tree.root(treeSize);
  const text = checkpointText({ origin, treeSize, rootHash: root });
  const signature = hexToBytes(signer.sign(encoder.encode(text)));
  const note = `${text}\n${signatureLine(origin, rawEd25519(signer.publicKey), signature)}`;
  return { treeSize, root, note, signedAt: at };
}
