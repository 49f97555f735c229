// A REST baseline, in a process of its own: POST /stamps implemented "the obvious way" (issue #24):
// express 5 + busboy, SHA3-256 of the file part while it streams in, a node:crypto Ed25519
// signature over a small JSON record, one row per request, a 201 with the record. No auth, limits,
// validation, batching or proofs. The row goes to
//   SQLite (a file path): better-sqlite3, WAL, synchronous=FULL, the durability of
//     server/store/sqlite/sqlite-store.ts, written on the event loop;
//   PostgreSQL (a postgres:// URL, issue #34): one INSERT per request through a `pg` Pool of its
//     default 10 connections, committed (synchronous_commit on) before the answer.
// Usage: express-stamp.ts <database file | postgres URL>. Prints `ready {"http":<port>}`.
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import busboy from "busboy";
import express from "express";
import pg from "pg";
import { monotonicFactory } from "ulid";
import { announceReady } from "./processes.js";

type Row = [id: string, createdAt: string, digest: string, record: string, signature: string];

const COLUMNS =
  "id TEXT PRIMARY KEY, created_at TEXT NOT NULL, document_hash TEXT NOT NULL, record TEXT NOT NULL, signature TEXT NOT NULL";

const target = process.argv[2]!;
const save = target.startsWith("postgres") ? await postgresTable(target) : sqliteTable(target);
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
  parser.on("close", async () => {
    if (!digest) return void res.status(400).json({ detail: "no file part", code: "missing_file" });
    const now = Date.now();
    const id = `stp_${ulid(now)}`;
    const createdAt = new Date(now).toISOString();
    const record = { id, content_hash: `sha3-256:${digest}`, created_at: createdAt };
    const text = JSON.stringify(record);
    const signature = sign(null, Buffer.from(text), privateKey).toString("base64");
    try {
      await save([id, createdAt, digest, text, signature]);
    } catch {
      return void res.status(503).json({ detail: "store unavailable", code: "store_unavailable" });
    }
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

function sqliteTable(file: string): (row: Row) => void {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE IF NOT EXISTS stamps (${COLUMNS})`);
  const insert = db.prepare("INSERT INTO stamps VALUES (?, ?, ?, ?, ?)");
  return (row) => void insert.run(...row);
}

/** Its own table, so it can share a schema with stampd's `stamps`. */
async function postgresTable(url: string): Promise<(row: Row) => Promise<void>> {
  const pool = new pg.Pool({ connectionString: url });
  await pool.query(`CREATE TABLE IF NOT EXISTS obvious_stamps (${COLUMNS})`);
  return async (row) =>
    void (await pool.query("INSERT INTO obvious_stamps VALUES ($1, $2, $3, $4, $5)", row));
}
