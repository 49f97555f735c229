import { jcs } from "../core/jcs.js";
import type { VerifyResult } from "../core/types.js";
import type { BundleCheck } from "../sdk/src/bundle/verify-bundle.js";
import type { StampdClient } from "../sdk/src/client.js";
import { NotFoundError } from "../sdk/src/internal/errors.js";
import { bundleLines, exitCodeOf, resultLines, verdict } from "./verify-report.js";

/** What `stampd verify --online` was given and has already checked here. */
export interface OnlineInput {
  stampId: string;
  /** The stamp document of the file. */
  stamp: object;
  /** The file checked here, as offline, under the key ring of the service asked. */
  local: BundleCheck | VerifyResult;
  document?: Blob;
}

/** The verdict `--online --json` prints. */
export interface OnlineCheck {
  /** The file holds here, the service holds the same stamp document, and verifies it. */
  valid: boolean;
  /** The service asked: the one the user named, never the file's `service_url`. */
  service_url: string;
  /** What the service holds under the stamp's id: this document, another one, or no stamp. */
  held: "same" | "different" | "absent";
  local: BundleCheck | VerifyResult;
  /** `POST /stamps/{id}/verify`, asked only when the service holds the same document. */
  service: VerifyResult | null;
}

/**
 * The second half of online verification: what the named service holds under the stamp's id
 * must be the file's own document, byte for byte in canonical form, and the service must find it
 * valid. The file was checked first, here, so a service that only answers "valid" (or a stamp id
 * lifted into a forged file) proves nothing.
 */
export async function verifyOnline(
  client: StampdClient,
  input: OnlineInput,
  opts: { url: string; json?: boolean },
): Promise<void> {
  const held = await heldDocument(client, input.stampId, input.stamp);
  const service =
    held === "same"
      ? await client.verify.stamp(input.stampId, input.document ? { file: input.document } : {})
      : null;
  const localValid = "pieces" in input.local ? input.local.valid : input.local.is_valid;
  const valid = localValid && held === "same" && service?.is_valid === true;
  const check: OnlineCheck = { valid, service_url: opts.url, held, local: input.local, service };
  console.log(opts.json ? JSON.stringify(check, null, 2) : onlineSummary(input, check));
  // The signer is known: the key ring came from the service the user named.
  process.exitCode = exitCodeOf(valid, true);
}

async function heldDocument(
  client: StampdClient,
  stampId: string,
  stamp: object,
): Promise<OnlineCheck["held"]> {
  try {
    const held = await client.stamps.get(stampId);
    return jcs(held.stamp_json) === jcs(stamp) ? "same" : "different";
  } catch (err) {
    if (err instanceof NotFoundError) return "absent";
    throw err;
  }
}

const heldText: Record<OnlineCheck["held"], string> = {
  same: "the same stamp document",
  different: "a different stamp document under this id: the file's is not the one the service made",
  absent: "no stamp of this id",
};

function onlineSummary(input: OnlineInput, check: OnlineCheck): string {
  const local = input.local;
  const lines = [
    `stamp ${input.stampId}: ${verdict(check.valid, true)} (online, ${check.service_url}: checked here with its key ring, then against what it holds)`,
    ...("pieces" in local ? bundleLines(local) : resultLines(local, true, false)),
    `  service holds      ${heldText[check.held]}`,
  ];
  if (check.service) {
    lines.push(
      `  service verdict    ${check.service.is_valid ? "valid" : "invalid"}, trust score ${check.service.trust_score} of ${check.service.trust_threshold} required`,
      ...resultLines(check.service, true, false).filter((l) =>
        /^ {2}content hash|^ {2}anchors|^ {2}- /.test(l),
      ),
    );
  }
  return lines.join("\n");
}
