import { openAsBlob } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { parseIJson } from "../../sdk/src/verify/i-json.js";
import { verifyStamp } from "../../sdk/src/verify/stamp.js";
import type { VerifyResult } from "../../sdk/src/verify/types.js";

interface VerifyOptions {
  trust?: string[];
  json?: boolean;
}

export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description("verify a stamp offline (no network): format, signatures and, given the file, its hash")
    .argument("<stamp.json>", "the stamp document (stamp_json), or a whole StampResponse holding one")
    .argument("[file]", "the original document, to compare its hash with the stamp's")
    .option("--trust <keys...>", "service keys (ed25519:<hex>) to accept; default: the key the stamp embeds")
    .option("--json", "print the result as JSON (the REST VerifyResponse shape)")
    .action(async (stampPath: string, filePath: string | undefined, opts: VerifyOptions) => {
      const stamp = stampDocumentOf(await readFile(stampPath, "utf8"));
      // A Blob backed by the file: the SDK reads it in chunks, never whole.
      const document = filePath ? await openAsBlob(filePath) : undefined;
      const result = await verifyStamp(stamp, { document, trustedServiceKeys: opts.trust });
      console.log(opts.json ? JSON.stringify(result, null, 2) : summary(stamp, result, opts));
      process.exitCode = result.is_valid ? 0 : 1;
    });
}

/** The stamp document in a file: the document itself, or the `stamp_json` of a saved StampResponse. */
export function stampDocumentOf(text: string): unknown {
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch {
    return text; // verifyStamp reports text that is not I-JSON as an invalid format
  }
  const wrapped = (value as { stamp_json?: unknown } | null)?.stamp_json;
  return typeof wrapped === "object" && wrapped !== null ? wrapped : value;
}

function summary(stamp: unknown, result: VerifyResult, opts: VerifyOptions): string {
  const { details } = result;
  const id = (stamp as { stamp_id?: unknown } | null)?.stamp_id;
  const anchors = details.anchors.map((a) => `${a.type} ${a.status}`).join(", ") || "none requested";
  const lines = [
    `stamp ${typeof id === "string" ? id : "(unknown id)"}: ${result.is_valid ? "VALID" : "INVALID"}`,
    `  format             ${details.format}`,
    `  service signature  ${details.service_signature}${opts.trust ? "" : " (key not pinned; --trust <key> requires a known service key)"}`,
    `  author signature   ${details.author_signature}`,
    `  content hash       ${details.content_hash}`,
    `  anchors            ${anchors}${details.anchors.length ? " (offline: live states not checked)" : ""}`,
    `  trust score        ${result.trust_score} of ${result.trust_threshold} required (${result.trust_met ? "met" : "not met"})`,
  ];
  if (details.failures.length) lines.push("failures:", ...details.failures.map((f) => `  - ${f}`));
  return lines.join("\n");
}
