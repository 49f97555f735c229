import type { AppContext } from "../context.js";
import { defaultHashAlgorithm, type HashAlgorithm } from "../hashing/algorithms.js";
import { hashStream } from "../hashing/hash-stream.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";
import { receiveUpload, uploadLimits } from "./uploads.js";

/** POST /hash: hashes the upload as it streams; nothing is stored. */
export function hashHandlers(ctx: AppContext): Handlers {
  return {
    hashFile: async (req, res) => {
      const result = await receiveUpload(req, uploadLimits(ctx.config, true), async (fields, file) => {
        // The form was checked against HashForm, so the algorithm is one of the enum's.
        const algorithm = (fields.algorithm ?? defaultHashAlgorithm) as HashAlgorithm;
        const { hash, size } = await hashStream(file!, algorithm);
        return { filename: file!.filename, size_bytes: size, algorithm, hash };
      });
      sendJson(res, "hashFile", 200, result);
    },
  };
}
