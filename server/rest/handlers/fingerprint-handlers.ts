import type { components } from "../../../gen/openapi/types.js";
import type { AppContext } from "../../context.js";
import { compareFingerprints } from "../../fingerprints/compare.js";
import { fingerprintResponse } from "../../fingerprints/document.js";
import { buildProof } from "../../fingerprints/proofs.js";
import { stampShadow } from "../../fingerprints/stamp-shadow.js";
import { fingerprintStream } from "../../fingerprints/stream.js";
import type { DecompositionMethod, FingerprintDocument, ShadowScale } from "../../fingerprints/types.js";
import { type FormFields, receiveUpload, type UploadOperation, uploadLimits } from "../uploads/uploads.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

// The form was checked against FingerprintForm, so the method is one of the enum's.
const methodOf = (fields: FormFields) => (fields.method ?? "hierarchical") as DecompositionMethod;

/**
 * POST /fingerprint as an upload. Fingerprinting with every method at once would cost four times
 * one, so a `method` still to come (none before the file) reads with the default and spools, and
 * another method named after the file reads the spool again.
 */
const fingerprintUpload: UploadOperation<DecompositionMethod, FingerprintDocument, FingerprintDocument> = {
  plan: (known) => ({ settings: methodOf(known), certain: known.method !== undefined }),
  settings: methodOf,
  read: fingerprintStream,
  reuse: (doc, readWith, final) => (readWith === final ? doc : null),
  finish: async (_fields, upload) => upload!.digest,
};

type CompareRequest = components["schemas"]["CompareRequest"];
type ProofRequest = components["schemas"]["ProofRequest"];

/** The routes whose JSON bodies are fingerprint documents, parsed up to MAX_FINGERPRINT_JSON_BYTES. */
export const FINGERPRINT_JSON_PATHS = ["/fingerprint/compare", "/fingerprint/proof"];

/** POST /fingerprint, /fingerprint/compare, /fingerprint/proof and GET /fingerprint/{stamp_id}/shadow/{scale}. */
export function fingerprintHandlers(ctx: AppContext): Handlers {
  return {
    createFingerprint: async (req, res) => {
      const doc = await receiveUpload(req, uploadLimits(ctx.config, true), fingerprintUpload);
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
