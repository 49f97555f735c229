import type { Request } from "express";
import { isStampDocument } from "../../sdk/src/verify/format.js";
import { DuplicateMemberError, parseIJson } from "../../sdk/src/verify/i-json.js";
import type { AppContext } from "../context.js";
import { ServiceError } from "../errors.js";
import { hashStream } from "../hashing/hash-stream.js";
import type { StampService } from "../stamps/stamp-service.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";
import { receiveUpload, type UploadOptions, uploadLimits } from "./uploads.js";

/** POST /stamps/{stamp_id}/verify and POST /verify. A stamp that does not verify is a 200. */
export function verifyHandlers(ctx: AppContext, stamps: StampService): Handlers {
  const limits = uploadLimits(ctx.config, false);
  return {
    verifyStamp: async (req, res) => {
      const id = req.params.stamp_id as string;
      const result = await receiveUpload(req, limits, async (_fields, file) => {
        // The stamp is looked up first: an unknown id answers 404 before the upload is read.
        const { stamp } = await stamps.get(id);
        const algorithm = stamp.document.document.algorithm;
        const contentHash = file ? { algorithm, hex: (await hashStream(file, algorithm)).hash } : undefined;
        return stamps.verifyById(id, { contentHash });
      });
      sendJson(res, "verifyStamp", 200, result);
    },
    verifyStampJson: async (req, res) => {
      const result = req.is("application/json")
        ? await stamps.verifyDocument((req.body as { stamp_json: unknown }).stamp_json)
        : await verifyForm(req, limits, stamps);
      sendJson(res, "verifyStampJson", 200, result);
    },
  };
}

/**
 * Multipart POST /verify: `stamp_json` (text) comes before the file, so the file is hashed with
 * the stamp's own algorithm as it streams. A document that is not well-formed names no usable
 * algorithm: its file is not read and the content hash is reported not checked.
 */
function verifyForm(req: Request, limits: UploadOptions, stamps: StampService) {
  return receiveUpload(req, limits, async (fields, file) => {
    const stampJson = parseStampJson(fields.stamp_json!);
    if (!file || !isStampDocument(stampJson)) return stamps.verifyDocument(stampJson);
    const algorithm = stampJson.document.algorithm;
    return stamps.verifyDocument(stampJson, {
      contentHash: { algorithm, hex: (await hashStream(file, algorithm)).hash },
    });
  });
}

function parseStampJson(text: string): object {
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch (err) {
    if (err instanceof DuplicateMemberError) {
      throw new ServiceError("invalid_argument", `stamp_json: ${err.message}`, "duplicate_member_name");
    }
    throw new ServiceError(
      "invalid_argument",
      `stamp_json is not valid JSON: ${(err as Error).message}`,
      "invalid_json",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ServiceError("invalid_argument", "stamp_json must be a JSON object", "invalid_json");
  }
  return value;
}
