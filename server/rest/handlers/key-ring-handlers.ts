import type { DeploymentKeyRing } from "../../keys/key-ring.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/**
 * `GET /keys`: the deployment's key ring, public and cacheable for as long as an instance may take
 * to see a rotation (`KEY_RING_REFRESH_SECONDS`), so a cache is never staler than an instance.
 */
export function keyRingHandlers(ring: Pick<DeploymentKeyRing, "entries">, refreshSeconds: number): Handlers {
  return {
    getKeyRing: (_req, res) => {
      res.setHeader("Cache-Control", `public, max-age=${refreshSeconds}`);
      sendJson(res, "getKeyRing", 200, { keys: [...ring.entries] });
    },
  };
}
