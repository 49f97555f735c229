// A REST baseline, in a process of its own: POST /stamps implemented "the obvious way" (issue #24):
// express 5 + busboy, SHA3-256 of the file part while it streams in, a node:crypto Ed25519
// signature over a small JSON record, one row per request into SQLite (better-sqlite3, WAL,
// synchronous=FULL: the durability of server/store/sqlite/sqlite-store.ts), a 201 with the record.
// No auth, limits, validation, batching or proofs. Usage: express-stamp.ts <database file>.
// Prints `ready {"http":<port>}`.
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import busboy from "busboy";
import express from "express";
import { monotonicFactory } from "ulid";
import { announceReady } from "./processes.js";

const db = new Database(process.argv[2]!);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec(`CREATE TABLE IF NOT EXISTS stamps (
  id TEXT PRIMARY KEY, created_at TEXT NOT NULL, document_hash TEXT NOT NULL,
  record TEXT NOT NULL, signature TEXT NOT NULL)`);
const insert = db.prepare("INSERT INTO stamps VALUES (?, ?, ?, ?, ?)");
const { privateKey } = generateKeyPairSync("ed25519");
const ulid = monotonicFactory();

const app = express();
app.disable("x-powered-by");
app.post("/stamps", (req, res) => {
  const parser = busboy({ headers: req.headers });
  let digest: string | undefined;
  parser.on("file", (_name, stream) => {
    const hash = createHash("sha3-256");
    stream.on("data", (chunk: Buffer) => hash.update(chunk));
    stream.on("end", () => {
      digest = hash.digest("hex");
    });
  });
  parser.on("close", () => {
    if (!digest) return void res.status(400).json({ detail: "no file part", code: "missing_file" });
    const now = Date.now();
    const id = `stp_${ulid(now)}`;
    const createdAt = new Date(now).toISOString();
    const record = { id, content_hash: `sha3-256:${digest}`, created_at: createdAt };
    const text = JSON.stringify(record);
    const signature = sign(null, Buffer.from(text), privateKey).toString("base64");
    insert.run(id, createdAt, digest, text, signature);
    res.status(201).json({ ...record, signature });
  });
  parser.on("error", () => res.status(400).json({ detail: "bad multipart", code: "invalid_multipart" }));
  req.pipe(parser);
});

const server = app.listen(0, "127.0.0.1", () => {
  announceReady({ http: (server.address() as AddressInfo).port });
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
