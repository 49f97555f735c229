import { defaultHashAlgorithm, hashAlgorithms } from "../../../core/content-hash.js";
import { isStampDocument } from "../../../core/format.js";
import { DuplicateMemberError, NestingTooDeepError, parseIJson } from "../../../core/i-json.js";
import type { HashAlgorithm, VerifyResult } from "../../../core/types.js";
import type { AppContext } from "../../context.js";
import { ServiceError } from "../../errors.js";
import type { StreamDigests } from "../../hashing/hash-stream.js";
import type { StampService } from "../../stamps/stamp-service.js";
import { digestOf, hashReading } from "../uploads/hash-reading.js";
import { type FormFields, receiveUpload, type UploadOperation, uploadLimits } from "../uploads/uploads.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** POST /stamps/{stamp_id}/verify and POST /verify. A stamp that does not verify is a 200. */
export function verifyHandlers(ctx: AppContext, stamps: StampService): Handlers {
  const limits = uploadLimits(ctx.config, false);
  return {
    verifyStamp: async (req, res) => {
      const op = storedStampUpload(stamps, req.params.stamp_id as string);
      sendJson(res, "verifyStamp", 200, await receiveUpload(req, limits, op));
    },
    verifyStampJson: async (req, res) => {
      const result = req.is("application/json")
        ? await stamps.verifyDocument((req.body as { stamp_json: unknown }).stamp_json)
        : await receiveUpload(req, limits, documentUpload(stamps));
      sendJson(res, "verifyStampJson", 200, result);
    },
  };
}

type HashUpload = UploadOperation<readonly HashAlgorithm[], StreamDigests, VerifyResult>;

/**
 * POST /stamps/{stamp_id}/verify: the stamp is looked up first, so an unknown id answers 404
 * before the upload is read, and the file is hashed with the stamp's own algorithm.
 */
function storedStampUpload(stamps: StampService, id: string): HashUpload {
  let algorithm: HashAlgorithm = defaultHashAlgorithm;
  return {
    ...hashReading,
    async start() {
      algorithm = (await stamps.get(id)).stamp.document.document.algorithm;
    },
    plan: () => ({ settings: [algorithm], certain: true }),
    settings: () => [algorithm],
    finish: (_fields, upload) =>
      stamps.verifyById(id, {
        contentHash: upload ? { algorithm, hex: digestOf(upload.digest, algorithm) } : undefined,
      }),
  };
}

/**
 * Multipart POST /verify: the file is hashed with the algorithm `stamp_json` names. A
 * `stamp_json` sent before the file says which; one sent after it could name any, so the file is
 * hashed with all three in the one pass. A document that is not well-formed names no usable
 * algorithm: its content hash is reported not checked.
 */
function documentUpload(stamps: StampService): HashUpload {
  const algorithmsOf = (fields: FormFields) => {
    const stampJson = parseStampJson(fields.stamp_json!);
    return isStampDocument(stampJson) ? [stampJson.document.algorithm] : [];
  };
  return {
    ...hashReading,
    textFiles: ["stamp_json"],
    plan: (known) => ({
      settings: known.stamp_json === undefined ? hashAlgorithms : algorithmsOf(known),
      certain: true,
    }),
    settings: algorithmsOf,
    finish: async (fields, upload) => {
      const stampJson = parseStampJson(fields.stamp_json!);
      if (!upload || !isStampDocument(stampJson)) return stamps.verifyDocument(stampJson);
      const algorithm = stampJson.document.algorithm;
      return stamps.verifyDocument(stampJson, {
        contentHash: { algorithm, hex: digestOf(upload.digest, algorithm) },
      });
    },
  };
}

function parseStampJson(text: string): object {
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch (err) {
    if (err instanceof DuplicateMemberError) {
      throw new ServiceError("invalid_argument", `stamp_json: ${err.message}`, "duplicate_member_name");
    }
    if (err instanceof NestingTooDeepError) {
      throw new ServiceError("invalid_argument", `stamp_json: ${err.message}`, "invalid_json");
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
