import type { SigstoreService } from "../../sigstore/sigstore-service.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

const BUNDLE_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json";

/** GET /stamps/{stamp_id}/sigstore and GET /sigstore/trusted_root.json (docs/sigstore.md). */
export function sigstoreHandlers(sigstore: SigstoreService): Handlers {
  return {
    getStampSigstoreBundle: async (req, res) => {
      const bundle = await sigstore.bundle(req.params.stamp_id as string);
      res.status(200).type(BUNDLE_TYPE).send(JSON.stringify(bundle));
    },
    getSigstoreTrustedRoot: async (_req, res) => {
      sendJson(res, "getSigstoreTrustedRoot", 200, await sigstore.trustedRoot());
    },
  };
}
