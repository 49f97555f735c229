import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM with the service's at-rest key. A sealed value is `nonce (12) | ciphertext | tag (16)`;
 * the associated data binds it to its row (an identity's id), so a ciphertext moved to another
 * row does not open.
 */
export interface AtRestCipher {
  seal(plaintext: Buffer, associatedData: string): Buffer;
  open(sealed: Buffer, associatedData: string): Buffer;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function atRestCipher(key: Buffer): AtRestCipher {
  if (key.length !== 32) throw new Error("the at-rest key must be 32 bytes");
  return {
    seal(plaintext, associatedData) {
      // A random 96-bit nonce per value: far below the 2^32 messages per key where collisions matter.
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      cipher.setAAD(Buffer.from(associatedData, "utf8"));
      return Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    },
    open(sealed, associatedData) {
      const nonce = sealed.subarray(0, NONCE_BYTES);
      const tag = sealed.subarray(sealed.length - TAG_BYTES);
      const decipher = createDecipheriv("aes-256-gcm", key, nonce);
      decipher.setAAD(Buffer.from(associatedData, "utf8"));
      decipher.setAuthTag(tag);
      return Buffer.concat([
        decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]);
    },
  };
}
