import { type Command, Option } from "commander";
import type { ProofBundle } from "../../sdk/src/bundle/bundle.js";
import { fetchProofBundle } from "../../sdk/src/bundle/fetch-bundle.js";
import { readBundleFile, writeBundleFile } from "../bundle-file.js";
import { clientFor, type RemoteFlags, withRemoteOptions } from "../client.js";

interface UpgradeFlags extends RemoteFlags {
  wait?: "confirmed" | "anchored";
}

interface Upgrade {
  file: string;
  stamp_id: string;
  status: string;
  /** What the file gained; empty when the service had nothing newer. */
  changes: string[];
}

export function registerUpgrade(program: Command): void {
  const command = program
    .command("upgrade")
    .description(
      "fetch newer proof into proof bundles (*.stampd.json): the batch proof once confirmed, anchor evidence, a newer log checkpoint with its consistency proof, the RFC 3161 token; each file is rewritten atomically",
    )
    .argument("<bundle...>", "the proof bundles to upgrade in place")
    .addOption(
      new Option("--wait [until]", "first wait until the stamp is confirmed (the default) or anchored")
        .choices(["confirmed", "anchored"])
        .preset("confirmed"),
    );
  withRemoteOptions(command).action(async (files: string[], flags: UpgradeFlags) => {
    // The bundle names its service; --url (or STAMPD_URL) overrides it, e.g. after a move.
    const urlGiven = command.getOptionValueSource("url") !== "default";
    const done: Upgrade[] = [];
    for (const file of files) done.push(await upgrade(file, flags, urlGiven));
    if (flags.json) console.log(JSON.stringify(files.length === 1 ? done[0] : done, null, 2));
    else
      for (const u of done) console.log(`${u.file}: ${u.status}; ${u.changes.join("; ") || "nothing newer"}`);
  });
}

async function upgrade(file: string, flags: UpgradeFlags, urlGiven: boolean): Promise<Upgrade> {
  const previous = await readBundleFile(file);
  const serviceUrl = urlGiven ? flags.url : previous.service_url;
  const WebSocket = flags.wait ? (await import("ws")).WebSocket : undefined;
  const client = clientFor({ ...flags, url: serviceUrl }, { WebSocket });
  const stampId = previous.stamp.stamp_id;
  if (flags.wait) await client.stamps.waitFor(stampId, { until: flags.wait, timeout: flags.timeout * 1000 });
  const next = await fetchProofBundle(client, stampId, { serviceUrl, previous });
  await writeBundleFile(file, next);
  return { file, stamp_id: stampId, status: next.stamp.status, changes: changes(previous, next) };
}

function changes(before: ProofBundle, after: ProofBundle): string[] {
  const found: string[] = [];
  if (before.stamp.status !== after.stamp.status)
    found.push(`status ${before.stamp.status} -> ${after.stamp.status}`);
  if (!before.proof && after.proof) found.push(`batch proof added (batch ${after.proof.batch.id})`);
  const [was, now] = [before.proof?.log?.tree_size, after.proof?.log?.tree_size];
  if (was === undefined && now !== undefined) found.push(`log inclusion added (checkpoint ${now})`);
  if (was !== undefined && now !== undefined && now > was)
    found.push(`checkpoint ${was} -> ${now} (consistency proven)`);
  if (!before.timestamp && after.timestamp) found.push("RFC 3161 token added");
  const anchorToken = (b: ProofBundle) => b.proof?.anchors.some((a) => a.type === "rfc3161" && a.evidence);
  if (!anchorToken(before) && anchorToken(after)) found.push("rfc3161 anchor token added");
  for (const anchor of after.stamp.anchors) {
    const old = before.stamp.anchors.find((a) => a.type === anchor.type);
    if (old?.status !== anchor.status)
      found.push(`anchor ${anchor.type} ${old?.status ?? "?"} -> ${anchor.status}`);
  }
  return found;
}
