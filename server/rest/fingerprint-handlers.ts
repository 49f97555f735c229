import type { components } from "../../gen/openapi/types.js";
import type { AppContext } from "../context.js";
import { compareFingerprints } from "../fingerprints/compare.js";
import { fingerprintResponse } from "../fingerprints/document.js";
import { buildProof } from "../fingerprints/proofs.js";
import { stampShadow } from "../fingerprints/stamp-shadow.js";
import { fingerprintStream } from "../fingerprints/stream.js";
import type { DecompositionMethod, ShadowScale } from "../fingerprints/types.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";
import { receiveUpload, uploadLimits } from "./uploads.js";

type CompareRequest = components["schemas"]["CompareRequest"];
type ProofRequest = components["schemas"]["ProofRequest"];

/** The routes whose JSON bodies are fingerprint documents, parsed up to MAX_FINGERPRINT_JSON_BYTES. */
export const FINGERPRINT_JSON_PATHS = ["/fingerprint/compare", "/fingerprint/proof"];

/** POST /fingerprint, /fingerprint/compare, /fingerprint/proof and GET /fingerprint/{stamp_id}/shadow/{scale}. */
export function fingerprintHandlers(ctx: AppContext): Handlers {
  return {
    createFingerprint: async (req, res) => {
      const doc = await receiveUpload(
        req,
        uploadLimits(ctx.config, true),
        // The form was checked against FingerprintForm, so the method is one of the enum's.
        (fields, file) => fingerprintStream(file!, (fields.method ?? "hierarchical") as DecompositionMethod),
      );
      sendJson(res, "createFingerprint", 200, fingerprintResponse(doc));
    },
    compareFingerprints: (req, res) => {
      const body = req.body as CompareRequest;
      sendJson(res, "compareFingerprints", 200, compareFingerprints(body.fingerprint1, body.fingerprint2));
    },
    createFingerprintProof: (req, res) => {
      sendJson(res, "createFingerprintProof", 200, buildProof(req.body as ProofRequest));
    },
    getShadow: async (req, res) => {
      const scale = Number(req.params.scale) as ShadowScale;
      sendJson(
        res,
        "getShadow",
        200,
        await stampShadow(ctx.store.stamps, String(req.params.stamp_id), scale),
      );
    },
  };
}
