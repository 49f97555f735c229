import { createHash } from "node:crypto";
import { bitcoin, pending, varbytes } from "./ots-bytes.js";
import { stubServer } from "./stub-server.js";

const NONCE = new Uint8Array(16).fill(4);
/** The block height the stand-in attests once `mined`. */
export const STUB_BLOCK_HEIGHT = 900003;

/**
 * An OpenTimestamps calendar stand-in: `POST /digest` commits append(nonce), sha256 to a pending
 * attestation naming its own URL; `GET /timestamp/<commitment>` answers prepend(0xbb), sha256 and
 * a Bitcoin attestation of `STUB_BLOCK_HEIGHT` once `state.mined`, else 404 (still pending).
 */
export async function stubCalendar() {
  const state = { mined: false };
  const server = await stubServer(({ method, path }) => {
    if (method === "POST" && path === "/digest")
      return { status: 200, body: Uint8Array.from([0xf0, ...varbytes(NONCE), 0x08, ...pending(server.url)]) };
    if (path.startsWith("/timestamp/") && state.mined)
      return {
        status: 200,
        body: Uint8Array.from([0xf1, ...varbytes([0xbb]), 0x08, ...bitcoin(STUB_BLOCK_HEIGHT)]),
      };
    return { status: 404, body: "Pending confirmation in Bitcoin blockchain", type: "text/plain" };
  });
  return {
    url: server.url,
    state,
    close: server.close,
    /** The commitment a batch root (hex) is pending under. */
    commitment: (root: string) =>
      createHash("sha256").update(Buffer.from(root, "hex")).update(NONCE).digest("hex"),
  };
}
