import { bytesToHex } from "@noble/hashes/utils.js";
import { invalid } from "../../errors.js";
import type { ProofDomain } from "../../proofs/domain.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** The transparency log (`/log…`) and the service TSA's certificate (`/tsa/ca.pem`). */
export function logHandlers(proofs: ProofDomain): Handlers {
  const { log } = proofs;
  return {
    getLogInfo: async (_req, res) => {
      const checkpoint = await log.checkpoint();
      sendJson(res, "getLogInfo", 200, {
        origin: log.origin,
        verifier_key: log.verifierKey,
        public_key: log.publicKey,
        tree_size: checkpoint.treeSize,
        root_hash: bytesToHex(checkpoint.root),
        checkpoint: checkpoint.note,
      });
    },
    getLogCheckpoint: async (_req, res) => {
      res
        .status(200)
        .type("text/plain; charset=utf-8")
        .send((await log.checkpoint()).note);
    },
    getLogInclusion: async (req, res) => {
      const [index, treeSize] = [Number(req.query.index), Number(req.query.tree_size)];
      const found = await withinLog(() => log.inclusion(index, treeSize));
      sendJson(res, "getLogInclusion", 200, {
        index,
        tree_size: treeSize,
        leaf_hash: bytesToHex(found.leafHash),
        batch_id: found.batchId,
        proof: found.proof.map(bytesToHex),
      });
    },
    getLogConsistency: async (req, res) => {
      const [first, second] = [Number(req.query.first), Number(req.query.second)];
      const found = await withinLog(() => log.consistency(first, second));
      sendJson(res, "getLogConsistency", 200, {
        first,
        second,
        first_root: bytesToHex(found.firstRoot),
        second_root: bytesToHex(found.secondRoot),
        proof: found.proof.map(bytesToHex),
      });
    },
    getTsaCertificate: (_req, res) => {
      res.status(200).type("application/pem-certificate-chain").send(proofs.tsa.caPem);
    },
  };
}

/** Sizes and indexes beyond the log are the caller's mistake: 400, not 500. */
async function withinLog<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof RangeError) throw invalid(err.message);
    throw err;
  }
}
