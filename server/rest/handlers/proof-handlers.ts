import type { Response } from "express";
import type { OtsExport } from "../../proofs/ots-export.js";
import type { ProofService } from "../../proofs/proof-service.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /stamps/{stamp_id}/proof, its timestamp.tsr and its timestamp.ots. */
export function proofHandlers(proofs: ProofService, ots: OtsExport): Handlers {
  return {
    getStampProof: async (req, res) => {
      sendJson(res, "getStampProof", 200, await proofs.stampProof(req.params.stamp_id as string));
    },
    getStampTimestamp: async (req, res) => {
      const id = req.params.stamp_id as string;
      sendDownload(res, "application/timestamp-reply", `${id}.tsr`, await proofs.timestamp(id));
    },
    getStampOpenTimestamps: async (req, res) => {
      const id = req.params.stamp_id as string;
      sendDownload(res, "application/vnd.opentimestamps.ots", `${id}.ots`, await ots.file(id));
    },
  };
}

function sendDownload(res: Response, type: string, filename: string, bytes: Uint8Array): void {
  res
    .status(200)
    .type(type)
    .setHeader("Content-Disposition", `attachment; filename="${filename}"`)
    .send(Buffer.from(bytes));
}
