import { createHash } from "node:crypto";
import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import Database from "better-sqlite3";
import WebSocket from "ws";
import { StampdSocket } from "../../sdk/src/ws/client.js";
import type { RunningService } from "../helpers/service.js";

export const digests = {
  sha256: (text: string) => createHash("sha256").update(text).digest("hex"),
  "sha3-256": (text: string) => createHash("sha3-256").update(text).digest("hex"),
  blake3: (text: string) => bytesToHex(blake3(new TextEncoder().encode(text))),
};

/** A stamp of a hash made over the WebSocket `stamp` message, as any client can (metadata included). */
export async function stampOverWs(
  svc: RunningService,
  contentHash: string,
  metadata: Record<string, string> = {},
): Promise<string> {
  const socket = new StampdSocket({ url: `${svc.baseUrl.replace(/^http/, "ws")}/ws`, WebSocket });
  try {
    return (await socket.stamp({ contentHash, metadata })).id;
  } finally {
    socket.close();
  }
}

/**
 * Changes a stored stamp's document behind the service's back, as someone with write access to its
 * database could: the signatures no longer match what the record says.
 */
export function tamperWithStoredHash(svc: RunningService, stampId: string): void {
  const db = new Database(`${svc.dataDir}/stampd.db`);
  try {
    const row = db.prepare("SELECT stamp_json FROM stamps WHERE id = ?").get(stampId) as {
      stamp_json: string;
    };
    const document = JSON.parse(row.stamp_json);
    document.document.hash = "0".repeat(64);
    db.prepare("UPDATE stamps SET stamp_json = ? WHERE id = ?").run(JSON.stringify(document), stampId);
  } finally {
    db.close();
  }
}
