import type { ProofService } from "../../proofs/proof-service.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /stamps/{stamp_id}/proof and GET /stamps/{stamp_id}/timestamp.tsr. */
export function proofHandlers(proofs: ProofService): Handlers {
  return {
    getStampProof: async (req, res) => {
      sendJson(res, "getStampProof", 200, await proofs.stampProof(req.params.stamp_id as string));
    },
    getStampTimestamp: async (req, res) => {
      const reply = await proofs.timestamp(req.params.stamp_id as string);
      res
        .status(200)
        .type("application/timestamp-reply")
        .setHeader("Content-Disposition", `attachment; filename="${req.params.stamp_id}.tsr"`)
        .send(Buffer.from(reply));
    },
  };
}
