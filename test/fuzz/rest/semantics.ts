import { createHash } from "node:crypto";
import { findMemberViolation } from "../../../core/i-json.js";
import type { OperationId } from "../../../server/contract/openapi.js";
import { depthOf } from "../json-depth.js";

type Json = Record<string, unknown>;

/** Server state some rules depend on, read once the fixtures are made (nothing changes it during a run). */
export interface ServerState {
  /** Entries in the transparency log. */
  logSize: number;
}

/** A request as the rules read it: the JSON body (or form fields) and the query parameters. */
interface Input {
  body: Json;
  query: Record<string, string>;
  state: ServerState;
}

/**
 * Rules the spec states in prose, beside its schemas, that make a schema-valid body invalid. Each
 * returns why the body breaks it (nothing when it does not). They are written from the spec's
 * words, not from the server's code, so a disagreement shows up as a failure.
 */
const rules: Partial<Record<OperationId, (input: Input) => string[]>> = {
  // createStamp with a JSON body (a hash; a form never parses as one): "`preset` and `generate_fp`
  // concern an uploaded document and answer 400 `validation_failed` with a JSON body".
  createStamp: ({ body, query }) =>
    body.hash === undefined
      ? []
      : ["preset", "generate_fp"].filter((n) => query[n] !== undefined).map((n) => `${n} with a JSON body`),
  // ContentUri: "Besides the pattern, each scheme has its rules (400 validation_failed otherwise)".
  // VaultMetadata: "the object serialized as compact JSON is at most 16384 UTF-8 bytes, and objects
  // and arrays nest at most 8 levels (the metadata object itself is level 1)".
  createVault: ({ body }) => [
    ...contentUriProblems((body.content_uris as unknown[] | undefined) ?? []),
    ...metadataProblems(body.metadata),
  ],
  // RetrieveRequest.signed_at: "Required for a vault with `recipient_public_key`": every vault the
  // fuzzer's fixtures make has one (and an unknown vault is refused anyway).
  retrieveVaultKey: ({ body }) => (body.signed_at === undefined ? ["signed_at is missing"] : []),
  addVaultMirror: ({ body }) => contentUriProblems([body.uri]),
  heartbeatVault: ({ body }) => receiptProblems(body.fee_receipt),
  batchHeartbeat: ({ body }) => receiptProblems(body.fee_receipt),
  // "Both must be within the log's current size (400 otherwise)."
  getLogInclusion: ({ query, state }) =>
    Number(query.index) < Number(query.tree_size) && Number(query.tree_size) <= state.logSize
      ? []
      : [
          `index ${query.index} and tree_size ${query.tree_size} are not within the log (${state.logSize} entries)`,
        ],
  // "`first <= second <= ` the current size, 400 otherwise".
  getLogConsistency: ({ query, state }) =>
    Number(query.first) <= Number(query.second) && Number(query.second) <= state.logSize
      ? []
      : [`first ${query.first} and second ${query.second} are not within the log (${state.logSize} entries)`],
  // ProofRequest.section_index: "Index of the chunk to prove (existence); must be below `chunk_count`."
  // Structure and similarity proofs: shadows that do not match their values answer 400.
  createFingerprintProof: ({ body }) => {
    const fingerprint = body.fingerprint_json as { chunk_count?: number } | undefined;
    if (body.proof_type === "existence") {
      const below = (body.section_index as number) < (fingerprint?.chunk_count ?? 0);
      return below ? [] : ["section_index is not below chunk_count"];
    }
    const reference = body.proof_type === "similarity" ? [body.reference_fingerprint] : [];
    return [body.fingerprint_json, ...reference].flatMap(shadowsProblems);
  },
  // FingerprintDocument.shadows: "shadows in another order, or a shadow whose `resolution`,
  // `length` or `hash` does not match its `scale` and `values` ... answer 400".
  compareFingerprints: ({ body }) => [body.fingerprint1, body.fingerprint2].flatMap(shadowsProblems),
};

/**
 * FeeReceipt: "The payload is read as I-JSON: a member named twice makes the receipt invalid",
 * `issued_at` at most FEE_RECEIPT_MAX_AGE_SECONDS (30 days) ago and at most
 * FEE_RECEIPT_CLOCK_SKEW_SECONDS (300) ahead. The other checks need the server's keys and fees.
 */
function receiptProblems(receipt: unknown): string[] {
  const payload = typeof receipt === "string" ? receipt.split(".")[1] : undefined;
  if (payload === undefined) return [];
  const text = Buffer.from(payload, "base64url").toString("utf8");
  let issuedAt: unknown;
  try {
    issuedAt = (JSON.parse(text) as { issued_at?: unknown }).issued_at;
  } catch {
    return []; // not a payload at all: its signature fails, which the server alone can tell
  }
  if (findMemberViolation(text, Number.POSITIVE_INFINITY)?.kind === "duplicate")
    return ["the fee receipt's payload names a member twice"];
  const issued = typeof issuedAt === "string" ? Date.parse(issuedAt) : Number.NaN;
  if (issued > Date.now() + 300_000) return ["the fee receipt was issued in the future"];
  if (issued < Date.now() - 30 * 86_400_000) return ["the fee receipt was issued over 30 days ago"];
  return [];
}

function metadataProblems(metadata: unknown): string[] {
  if (metadata === undefined) return [];
  // Before serializing: the fuzzer nests arrays 100 000 deep, past what JSON.stringify can walk.
  if (depthOf(metadata) > 8) return ["metadata nests deeper than 8 levels"];
  return Buffer.byteLength(JSON.stringify(metadata)) > 16_384 ? ["metadata is over 16384 bytes as JSON"] : [];
}

/** Prose rules a request to `operationId` breaks (the body, when given, already matches its schema). */
export function semanticProblems(
  operationId: OperationId,
  input: { body?: unknown; query: [string, string][]; state: ServerState },
): string[] {
  const rule = rules[operationId];
  if (!rule) return [];
  const body =
    typeof input.body === "object" && input.body !== null && !Array.isArray(input.body)
      ? (input.body as Json)
      : {};
  return rule({ body, query: Object.fromEntries(input.query), state: input.state });
}

const CID = /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{50,}|k[0-9a-z]{50,})(\/.*)?$/;
const AR_TX = /^[A-Za-z0-9_-]{43}(\/.*)?$/;
const S3 = /^(?=[a-z0-9.-]{3,63}\/)[a-z0-9]([a-z0-9.-]*[a-z0-9])?\/.+$/;

/** The per-scheme rules of `ContentUri`. */
function contentUriProblems(uris: unknown[]): string[] {
  return uris
    .filter((uri) => typeof uri === "string" && !schemeRuleHolds(uri))
    .map((uri) => `content URI ${JSON.stringify(uri)} breaks its scheme's rule`);
}

function schemeRuleHolds(uri: string): boolean {
  // The scheme in either case (RFC 3986 section 3.1), as the spec's pattern takes it.
  const [, written, rest = ""] = /^([A-Za-z0-9]+):\/\/(.*)$/s.exec(uri) ?? [];
  const scheme = written?.toLowerCase();
  if (scheme === "ipfs") return CID.test(rest);
  if (scheme === "ar") return AR_TX.test(rest);
  if (scheme === "s3") return S3.test(rest);
  if (scheme !== "https") return false;
  try {
    const url = new URL(uri);
    return url.hostname !== "" && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

interface Shadow {
  scale: number;
  resolution: string;
  length: number;
  hash: string;
  values: number[];
}

const SCALES = [2, 3, 5, 7, 11, 13];

/**
 * The rules of `FingerprintDocument.shadows`, `fine_shadows` ("entries out of order, or shadows
 * that do not add up, answer 400") and `ShadowTransform`, from their descriptions.
 */
function shadowsProblems(fingerprint: unknown): string[] {
  const doc = fingerprint as {
    shadows?: Shadow[];
    fine_shadows?: { piece_bytes: number; shadows: Shadow[] }[];
  };
  const fine = doc?.fine_shadows ?? [];
  if (!fine.every((f, i) => i === 0 || f.piece_bytes > fine[i - 1]!.piece_bytes))
    return ["fine_shadows are not in increasing order of piece_bytes"];
  return [doc?.shadows ?? [], ...fine.map((f) => f.shadows)].flatMap(shadowListProblems);
}

function shadowListProblems(shadows: Shadow[]): string[] {
  if (shadows.map((s) => s.scale).join() !== SCALES.join())
    return ["shadows are not one per scale, in order"];
  return shadows.flatMap((s) => {
    const problems: string[] = [];
    // "100 / scale with two decimals".
    if (s.resolution !== `${(100 / s.scale).toFixed(2)}%`) problems.push(`scale ${s.scale}: resolution`);
    if (s.length !== s.values.length) problems.push(`scale ${s.scale}: length is not the number of values`);
    if (!s.values.every((v, i) => i === 0 || v > s.values[i - 1]!))
      problems.push(`scale ${s.scale}: values not increasing`);
    // "SHA-256 of `values`, each as a 4-byte big-endian unsigned integer."
    const bytes = Buffer.alloc(s.values.length * 4);
    for (const [i, v] of s.values.entries()) bytes.writeUInt32BE(v, i * 4);
    if (createHash("sha256").update(bytes).digest("hex") !== s.hash) problems.push(`scale ${s.scale}: hash`);
    return problems;
  });
}
