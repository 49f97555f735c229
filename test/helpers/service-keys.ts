import { generateKeyPairSync, randomBytes } from "node:crypto";
import { atRestCipher } from "../../server/keys/at-rest-cipher.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";
import type { ServiceKeys } from "../../server/keys/service-keys.js";

/** Fresh service keys held in memory only, for tests that assemble an AppContext by hand. */
export function testServiceKeys(): ServiceKeys {
  return {
    signing: ed25519Signer(generateKeyPairSync("ed25519").privateKey),
    atRest: atRestCipher(randomBytes(32)),
  };
}
