import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CheckpointError,
  checkpointText,
  ed25519KeyId,
  signatureLine,
  verifierKey,
  verifyCheckpoint,
} from "../../core/checkpoint.js";

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url"));
  return { privateKey, raw };
}

const ORIGIN = "example.com/log";
const root = new Uint8Array(32).fill(7);

function signed(text: string, key = keyPair(), name = ORIGIN) {
  const signature = new Uint8Array(sign(null, Buffer.from(text), key.privateKey));
  return {
    note: `${text}\n${signatureLine(name, key.raw, signature)}`,
    key,
    vkey: verifierKey(name, key.raw),
  };
}

describe("C2SP checkpoints", () => {
  it("computes the signed-note key ID as SHA-256(name ‖ 0x0A ‖ 0x01 ‖ key)[:4]", () => {
    const { raw } = keyPair();
    const expected = createHash("sha256")
      .update(Buffer.concat([Buffer.from(`${ORIGIN}\n`), Buffer.of(1), raw]))
      .digest()
      .subarray(0, 4);
    expect(Buffer.from(ed25519KeyId(ORIGIN, raw))).toEqual(expected);
    expect(verifierKey(ORIGIN, raw)).toBe(
      `${ORIGIN}+${expected.toString("hex")}+${Buffer.concat([Buffer.of(1), raw]).toString("base64")}`,
    );
  });

  it("formats the body as origin, size and base64 root, each on its line", () => {
    expect(checkpointText({ origin: ORIGIN, treeSize: 42, rootHash: root })).toBe(
      `${ORIGIN}\n42\n${Buffer.from(root).toString("base64")}\n`,
    );
  });

  it("verifies with the verifier key, whatever characters its base64 holds", async () => {
    // Keys until one whose verifier key has a '+' in its base64 part, as Go's note package allows.
    let made = signed(checkpointText({ origin: ORIGIN, treeSize: 3, rootHash: root }));
    while (!made.vkey.slice(ORIGIN.length + 10).includes("+")) {
      made = signed(checkpointText({ origin: ORIGIN, treeSize: 3, rootHash: root }));
    }
    expect(await verifyCheckpoint(made.note, [made.vkey])).toEqual({
      origin: ORIGIN,
      treeSize: 3,
      rootHash: root,
    });
  });

  it("ignores unknown signers but needs one trusted signature", async () => {
    const text = checkpointText({ origin: ORIGIN, treeSize: 3, rootHash: root });
    const log = signed(text);
    const witness = signed(text, keyPair(), "witness.example/w1");
    const both = `${log.note}${witness.note.slice(text.length + 1)}`;
    expect((await verifyCheckpoint(both, [log.vkey])).treeSize).toBe(3);
    await expect(verifyCheckpoint(witness.note, [log.vkey])).rejects.toThrow(CheckpointError);
  });

  it("rejects a changed body, a bad signature and a malformed note", async () => {
    const made = signed(checkpointText({ origin: ORIGIN, treeSize: 3, rootHash: root }));
    const cases = [
      made.note.replace("\n3\n", "\n4\n"),
      made.note.replace(
        / (\S+)\n$/,
        (_, sig: string) => ` ${sig.slice(0, 10)}${sig[10] === "A" ? "B" : "A"}${sig.slice(11)}\n`,
      ),
      made.note.replace("\n\n", "\n"),
      `${made.note}trailing`,
    ];
    for (const note of cases)
      await expect(verifyCheckpoint(note, [made.vkey])).rejects.toThrow(CheckpointError);
  });

  it("rejects a checkpoint whose origin is not the trusted key's name", async () => {
    const made = signed(checkpointText({ origin: "other.example/log", treeSize: 1, rootHash: root }));
    await expect(verifyCheckpoint(made.note, [made.vkey])).rejects.toThrow(/origin/);
  });
});
