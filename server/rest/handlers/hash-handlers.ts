import { defaultHashAlgorithm, hashAlgorithms } from "../../../core/content-hash.js";
import type { HashAlgorithm } from "../../../core/types.js";
import type { AppContext } from "../../context.js";
import { digestOf, hashReading } from "../uploads/hash-reading.js";
import { type FormFields, receiveUpload, uploadLimits } from "../uploads/uploads.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

// The form was checked against HashForm, so the algorithm is one of the enum's.
const algorithmOf = (fields: FormFields) => (fields.algorithm ?? defaultHashAlgorithm) as HashAlgorithm;

/** POST /hash: hashes the upload as it streams; nothing is stored. */
export function hashHandlers(ctx: AppContext): Handlers {
  return {
    hashFile: async (req, res) => {
      const result = await receiveUpload(req, uploadLimits(ctx.config, true), {
        ...hashReading,
        // An `algorithm` after the file: every algorithm it may name, in the one pass.
        plan: (known) => ({
          settings: known.algorithm === undefined ? hashAlgorithms : [algorithmOf(known)],
          certain: true,
        }),
        settings: (fields) => [algorithmOf(fields)],
        finish: async (fields, upload) => {
          const algorithm = algorithmOf(fields);
          const { file, digest } = upload!;
          return {
            filename: file.filename,
            size_bytes: digest.size,
            algorithm,
            hash: digestOf(digest, algorithm),
          };
        },
      });
      sendJson(res, "hashFile", 200, result);
    },
  };
}
