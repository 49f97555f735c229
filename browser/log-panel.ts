import type { components } from "../gen/openapi/types.js";

type LogInfo = components["schemas"]["LogInfo"];

/**
 * Shows the transparency log's latest checkpoint (GET /log) and its size, the number of sealed
 * batches (each batch root is one log entry). A deployment without the log answers otherwise than
 * 200; the panel then says so and the count stays "–".
 */
export async function showLog(url: string): Promise<void> {
  const status = document.getElementById("log-status")!;
  const details = document.getElementById("log-details")!;
  try {
    const res = await fetch(url, { headers: { accept: "application/json" } });
    if (!res.ok) {
      // A 429 keeps what is shown; only a log that is not there changes the panel.
      if (res.status !== 429)
        status.textContent = `No checkpoint: this service does not publish its log here (HTTP ${res.status}).`;
      return;
    }
    const log: LogInfo = await res.json();
    for (const field of ["origin", "tree_size", "root_hash", "checkpoint"] as const) {
      const el = details.querySelector(`[data-log="${field}"]`);
      if (el) el.textContent = String(log[field]);
    }
    const batches = document.querySelector('[data-count="batches"]');
    if (batches) batches.textContent = String(log.tree_size);
    status.hidden = true;
    details.hidden = false;
  } catch {
    // Offline for a moment: the next refresh tries again.
  }
}
