// The stamp writer thread (stamp-writer.ts starts it): owns a connection of its own to the
// database file and commits each group of rows it is sent, so the event loop is not held through
// the INSERTs and the fsync of a commit. Built as an entry point of its own (scripts/build-server.mjs).
import { parentPort, workerData } from "node:worker_threads";
import { openConnection } from "./connection.js";
import { type RowTarget, rowInserter } from "./row-inserts.js";
import type { WriterReply, WriterRequest, WriterSettings } from "./stamp-writer.js";

const { path, target } = workerData as WriterSettings & { target: RowTarget };
const port = parentPort!;
const db = openConnection(path);
let insert: ((values: unknown[]) => void) | undefined;

port.on("message", (request: WriterRequest) => {
  if (request === "close") {
    db.close();
    port.close();
    return;
  }
  port.postMessage(commit(request));
});

function commit(values: unknown[]): WriterReply {
  try {
    // Prepared on the first commit: the table exists by then (the main thread migrates first).
    insert ??= rowInserter(db, target);
    insert(values);
    return null;
  } catch (err) {
    const { message, code } = err as { message: string; code?: string };
    return { message, code };
  }
}
