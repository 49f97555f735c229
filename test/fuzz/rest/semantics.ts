import type { OperationId } from "../../../server/rest/spec.js";

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
  // ContentUri: "Besides the pattern, each scheme has its rules (400 validation_failed otherwise)".
  createVault: ({ body }) => contentUriProblems((body.content_uris as unknown[] | undefined) ?? []),
  addVaultMirror: ({ body }) => contentUriProblems([body.uri]),
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
  createFingerprintProof: ({ body }) => {
    const fingerprint = body.fingerprint_json as { chunk_count?: number } | undefined;
    const below = (body.section_index as number) < (fingerprint?.chunk_count ?? 0);
    return body.proof_type === "existence" && !below ? ["section_index is not below chunk_count"] : [];
  },
};

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

const CID = /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]+|k[0-9a-z]+)(\/.*)?$/;
const AR_TX = /^[A-Za-z0-9_-]{43}(\/.*)?$/;
const S3 = /^[a-z0-9.-]{3,63}\/.+$/;

/** The per-scheme rules of `ContentUri`. */
function contentUriProblems(uris: unknown[]): string[] {
  return uris
    .filter((uri) => typeof uri === "string" && !schemeRuleHolds(uri))
    .map((uri) => `content URI ${JSON.stringify(uri)} breaks its scheme's rule`);
}

function schemeRuleHolds(uri: string): boolean {
  const [, scheme, rest = ""] = /^([a-z0-9]+):\/\/(.*)$/s.exec(uri) ?? [];
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
