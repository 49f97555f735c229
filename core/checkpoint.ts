import { verifyAsync } from "@noble/ed25519";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { fromBase64, toBase64 } from "./base64.js";
import { equalBytes } from "./merkle.js";

/**
 * Transparency-log checkpoints as C2SP signed notes (c2sp.org/tlog-checkpoint, c2sp.org/signed-note):
 * the note text is `<origin>\n<tree size>\n<base64 root hash>\n`, then a blank line, then one line
 * per signature: `— <key name> <base64(4-byte key ID ‖ Ed25519 signature of the text)>`. Portable:
 * no node: imports.
 */
export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Uint8Array;
}

/** A checkpoint that does not parse or is not signed by a trusted key. */
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
}

const encoder = new TextEncoder();
const ED25519 = 0x01;
const SIGNATURE_PREFIX = "\u2014 ";

/**
 * The note text of a checkpoint (what is signed).
 *
 * @example
 * checkpointText({ origin: "stampd.example.com/log", treeSize: 1843, rootHash }); // "stampd.example.com/log\n1843\n<base64>\n"
 */
export function checkpointText(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.treeSize}\n${toBase64(checkpoint.rootHash)}\n`;
}

/**
 * The stamp log's origin for a transparency log origin (docs/sigstore.md): a name of its own, so a
 * checkpoint of one log never passes for the other's, though the log key signs both.
 *
 * @example
 * stampLogOrigin("stampd.example.com/log"); // "stampd.example.com/log/stamps"
 */
export const stampLogOrigin = (logOrigin: string): string => `${logOrigin}/stamps`;

/** SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ 32-byte public key): a Sigstore trusted root's `checkpointKeyId`. */
export function ed25519KeyHash(keyName: string, publicKey: Uint8Array): Uint8Array {
  return sha256(new Uint8Array([...encoder.encode(`${keyName}\n`), ED25519, ...publicKey]));
}

/** Key ID = SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ 32-byte public key)[:4] (signed-note, Ed25519). */
export function ed25519KeyId(keyName: string, publicKey: Uint8Array): Uint8Array {
  return ed25519KeyHash(keyName, publicKey).subarray(0, 4);
}

/** The signature line for `signature` (64 bytes) made by the named key over the note text. */
export function signatureLine(keyName: string, publicKey: Uint8Array, signature: Uint8Array): string {
  return `${SIGNATURE_PREFIX}${keyName} ${toBase64(new Uint8Array([...ed25519KeyId(keyName, publicKey), ...signature]))}\n`;
}

/**
 * The verifier key a client trusts, in the Go note package's text form:
 * `<name>+<8 hex key ID>+<base64(0x01 ‖ public key)>`.
 *
 * @example
 * const pinned = verifierKey("stampd.example.com/log", ed25519PublicKey);
 */
export function verifierKey(keyName: string, publicKey: Uint8Array): string {
  const id = bytesToHex(ed25519KeyId(keyName, publicKey));
  return `${keyName}+${id}+${toBase64(new Uint8Array([ED25519, ...publicKey]))}`;
}

/**
 * The stamp log's verifier key from the transparency log's: the same log key under the stamp log's
 * origin (docs/sigstore.md), so one pinned key checks both logs.
 *
 * @example
 * const keys = [pinnedLogKey, stampLogVerifierKey(pinnedLogKey)];
 */
export function stampLogVerifierKey(logVerifierKey: string): string {
  const { name, publicKey } = parseVerifierKey(logVerifierKey);
  return verifierKey(stampLogOrigin(name), publicKey);
}

interface TrustedKey {
  name: string;
  id: Uint8Array;
  publicKey: Uint8Array;
}

function parseVerifierKey(text: string): TrustedKey {
  // name+id+key: names hold no '+', but the base64 key may.
  const [name, idHex] = text.split("+", 2);
  const key = text.slice((name?.length ?? 0) + (idHex?.length ?? 0) + 2);
  const bytes = key ? decode(key) : undefined;
  if (
    !name ||
    !idHex ||
    !/^[0-9a-f]{8}$/.test(idHex) ||
    !bytes ||
    bytes[0] !== ED25519 ||
    bytes.length !== 33
  ) {
    throw new CheckpointError(`not an Ed25519 verifier key: ${text}`);
  }
  const publicKey = bytes.subarray(1);
  if (!equalBytes(hexToBytes(idHex), ed25519KeyId(name, publicKey))) {
    throw new CheckpointError(`verifier key ${name}: key ID does not match the key`);
  }
  return { name, id: ed25519KeyId(name, publicKey), publicKey };
}

/** Splits a signed note at its last blank line into the text and the signature lines. */
function splitNote(note: string): { text: string; lines: string[] } {
  const at = note.lastIndexOf("\n\n");
  if (at < 0 || !note.endsWith("\n")) throw new CheckpointError("not a signed note");
  return { text: note.slice(0, at + 1), lines: note.slice(at + 2, -1).split("\n") };
}

/**
 * Parses the checkpoint body, without checking a signature (`verifyCheckpoint` does); only the
 * three mandatory lines are accepted.
 *
 * @example
 * const { origin, treeSize } = parseCheckpoint(note.slice(0, note.indexOf("\n\n") + 1));
 */
export function parseCheckpoint(text: string): Checkpoint {
  const [origin, size, root, ...extensions] = text.slice(0, -1).split("\n");
  if (!origin || !size || !root || extensions.length > 0) throw new CheckpointError("malformed checkpoint");
  if (!/^(0|[1-9]\d*)$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw new CheckpointError(`malformed tree size ${size}`);
  }
  const rootHash = decode(root);
  if (rootHash.length !== 32) throw new CheckpointError("root hash is not 32 bytes");
  return { origin, treeSize: Number(size), rootHash };
}

/**
 * Verifies a signed checkpoint against trusted verifier keys and returns it. As the signed-note
 * spec requires, signatures of unknown keys are ignored, a known key's bad signature rejects the
 * note, and at least one trusted signature must verify.
 *
 * @example
 * const { treeSize, rootHash } = await verifyCheckpoint(await client.log.checkpoint(), [pinnedLogKey]);
 */
export async function verifyCheckpoint(note: string, trustedKeys: readonly string[]): Promise<Checkpoint> {
  const keys = trustedKeys.map(parseVerifierKey);
  const { text, lines } = splitNote(note);
  let verified = 0;
  for (const line of lines) {
    const key = matchingKey(line, keys);
    if (!key) continue;
    if (!(await verifyAsync(key.signature, encoder.encode(text), key.publicKey, { zip215: false }))) {
      throw new CheckpointError(`signature of ${key.name} does not verify`);
    }
    verified++;
  }
  if (verified === 0) throw new CheckpointError("no signature by a trusted log key");
  const checkpoint = parseCheckpoint(text);
  if (!keys.some((k) => k.name === checkpoint.origin)) {
    throw new CheckpointError(`checkpoint origin ${checkpoint.origin} is not a trusted log`);
  }
  return checkpoint;
}

function matchingKey(line: string, keys: TrustedKey[]) {
  if (!line.startsWith(SIGNATURE_PREFIX)) throw new CheckpointError("malformed signature line");
  const [name, encoded, ...rest] = line.slice(SIGNATURE_PREFIX.length).split(" ");
  if (!name || !encoded || rest.length > 0) throw new CheckpointError("malformed signature line");
  const bytes = decode(encoded);
  const key = keys.find((k) => k.name === name && equalBytes(k.id, bytes.subarray(0, 4)));
  if (!key) return undefined;
  if (bytes.length !== 68) throw new CheckpointError(`signature of ${name} is not an Ed25519 signature`);
  return { ...key, signature: bytes.subarray(4) };
}

function decode(text: string): Uint8Array {
  try {
    return fromBase64(text);
  } catch {
    throw new CheckpointError("malformed base64 in the note");
  }
}
