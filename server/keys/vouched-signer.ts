import type { Clock } from "../clock.js";
import { unavailable } from "../errors.js";
import type { Signer } from "./ed25519.js";
import type { DeploymentKeyRing } from "./key-ring.js";
import { pinnedSigner } from "./rotating-signer.js";

/** Rounds of "the ring swapped the key, sign again" before giving up for now. */
const MAX_ROUNDS = 3;

/**
 * The key `signer` has active and a time to sign at, once the key ring vouches for that key at
 * that time (issue #35: what the pipeline publishes — a batch's signature, a checkpoint — is never
 * signed with a key revoked meanwhile, not for up to KEY_RING_REFRESH_SECONDS). The time is taken
 * before the ring is read, so a revocation the read misses is dated after it; a key no longer
 * vouched for has been swapped for the ring's active one when `vouches` answers, and the next round
 * takes that one. Without a ring (tests of a bare pipeline) the key is taken as it is.
 */
export async function vouchedSigner(
  ring: Pick<DeploymentKeyRing, "vouches"> | undefined,
  kind: "service" | "log",
  signer: Signer,
  clock: Clock,
): Promise<{ signer: Signer; at: Date }> {
  for (let round = 1; ; round++) {
    const pinned = pinnedSigner(signer);
    const at = clock.now();
    if (!ring || (await ring.vouches(kind, pinned.publicKey, at))) return { signer: pinned, at };
    if (round === MAX_ROUNDS) throw unavailable(`the ${kind} key is being replaced; retry`, "server_busy", 1);
  }
}
