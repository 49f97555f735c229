import type { Signer } from "./ed25519.js";

/**
 * The Signer of a kind's active ring key, swapped when the ring is re-read after a rotation, so
 * the services built once at start sign with whichever key is active now.
 */
export class RotatingSigner implements Signer {
  constructor(private current: Signer) {}

  get publicKey(): string {
    return this.current.publicKey;
  }

  sign(message: Uint8Array): string {
    return this.current.sign(message);
  }

  /**
   * The key active now, kept whatever the ring does next: for work that embeds the public key,
   * yields to the event loop, then signs (a batch of stamps), which must use one key throughout.
   */
  pinned(): Signer {
    return this.current;
  }

  /** Makes `signer` the key from now on. */
  use(signer: Signer): void {
    this.current = signer;
  }
}

/** `signer` itself, or the key a RotatingSigner has active now. */
export const pinnedSigner = (signer: Signer): Signer =>
  signer instanceof RotatingSigner ? signer.pinned() : signer;
