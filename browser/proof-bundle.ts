import { fetchProofBundle } from "../sdk/src/bundle/fetch-bundle.js";
import { createClient } from "../sdk/src/index.js";

// The verification page's proof bundle download, loaded only when asked for: the SDK gathers the
// same <stamp id>.stampd.json `stampd get --out` saves (stamp, batch proof, log checkpoint and
// inclusion, time-stamp token and CA), and the browser saves it as a file.

/** Gathers the stamp's proof bundle from `base` and offers it as `<stamp id>.stampd.json`. */
export async function downloadProofBundle(base: string, stampId: string): Promise<void> {
  const bundle = await fetchProofBundle(createClient({ baseUrl: base }), stampId, { serviceUrl: base });
  const blob = new Blob([`${JSON.stringify(bundle, null, 2)}\n`], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `${stampId}.stampd.json`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
