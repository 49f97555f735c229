import type { Command } from "commander";
import type { Schemas } from "../../sdk/src/index.js";
import { saveBundle } from "../bundle-file.js";
import { clientFor, print, type RemoteFlags, withRemoteOptions } from "../client.js";

export function registerGet(program: Command): void {
  const command = program
    .command("get")
    .description("show a stamp's status: GET /stamps/{id} (status, anchors, trust score, verification page)")
    .argument("<stamp-id>", "the stamp id (stp_…)")
    .option(
      "--out <file>",
      "also save the stamp's proof bundle (<name>.stampd.json: document, batch proof, log checkpoint, tokens) for stampd verify offline",
    );
  withRemoteOptions(command).action(async (stampId: string, flags: RemoteFlags & { out?: string }) => {
    const client = clientFor(flags);
    const stamp = await client.stamps.get(stampId);
    if (flags.out) await saveBundle(client, stampId, flags.out, flags.url, stamp);
    print(flags, stamp, () => describeStamp(stamp) + (flags.out ? `\n  saved        ${flags.out}` : ""));
  });
}

/** The stamp as a few aligned lines: what a user checks first, then each anchor. */
export function describeStamp(stamp: Schemas["StampResponse"]): string {
  const { document } = stamp.stamp_json;
  const trust = `${stamp.trust_score} of ${stamp.trust_threshold} required (${stamp.trust_met ? "met" : "not met"})`;
  return [
    `stamp ${stamp.stamp_id}: ${stamp.status}`,
    `  created      ${stamp.created_at}`,
    `  document     ${document.algorithm}:${document.hash}${document.size_bytes === null ? "" : ` (${document.size_bytes} bytes)`}`,
    `  signed       ${stamp.is_signed ? `yes, by ${stamp.author_public_key}` : "no"}`,
    `  trust score  ${trust}`,
    ...stamp.anchors.map((a) => `  anchor       ${a.type} ${a.status}${anchorDetail(a)}`),
    `  verify page  ${stamp.verify_url}`,
  ].join("\n");
}

function anchorDetail(anchor: Schemas["AnchorState"]): string {
  if (anchor.status === "confirmed") return ` ${anchor.confirmed_at} (reference ${anchor.reference})`;
  return anchor.reason ? ` (${anchor.reason})` : "";
}
