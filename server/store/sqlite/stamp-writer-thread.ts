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
  // Prepared on the first commit: the table exists by then (the main thread migrates first).
  insert ??= rowInserter(db, target);
  for (;;) {
    try {
      insert(values);
      return null;
    } catch (err) {
      const { message, code } = err as { message: string; code?: string };
      // The busy timeout ran out while the main connection kept taking the write lock (SQLite's
      // busy handler sleeps and retries, so it is not fair). Each of the main thread's transactions
      // ends within one turn of its event loop, and no new group is sent while it is blocked, so
      // trying again gets through; the caller is answered later, never refused for it.
      if (!code?.startsWith("SQLITE_BUSY")) return { message, code };
    }
  }
}
