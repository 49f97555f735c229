// The REST baselines: a bare express 5 app in a process of its own, with none of stampd's
// middleware (request id, CORS, auth, limiter, OpenAPI validation) and no domain work.
//   upload: POST /upload parses the multipart body with busboy, as stampd does, reads the file part
//           to its end and answers a small JSON.
//   json <file>: GET /json answers the JSON value in <file> (a stamp response), serialised per request.
//   row <postgres URL>: GET /stamps/:id reads that stamp's row from stampd's `stamps` table (one
//           SELECT by primary key through a `pg` Pool of its default 10 connections) and answers it
//           as JSON, the stored stamp document included (issue #34).
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import busboy from "busboy";
import express from "express";
import pg from "pg";
import { announceReady } from "./processes.js";

const [mode, arg] = process.argv.slice(2);
const app = express();
app.disable("x-powered-by");

if (mode === "upload") {
  app.post("/upload", (req, res) => {
    const parser = busboy({ headers: req.headers });
    let size = 0;
    parser.on("file", (_name, stream) => {
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
      });
    });
    parser.on("close", () => res.status(201).json({ ok: true, size_bytes: size }));
    parser.on("error", () => res.status(400).json({ detail: "bad multipart", code: "invalid_multipart" }));
    req.pipe(parser);
  });
} else if (mode === "json" && arg) {
  const body = JSON.parse(readFileSync(arg, "utf8")) as unknown;
  app.get("/json", (_req, res) => void res.json(body));
} else if (mode === "row" && arg) {
  const pool = new pg.Pool({ connectionString: arg });
  const select =
    "SELECT id, created_at, hash_algorithm, document_hash, status, stamp_json FROM stamps WHERE id = $1";
  app.get("/stamps/:id", async (req, res) => {
    const { rows } = await pool.query(select, [req.params.id]);
    if (!rows[0]) return void res.status(404).json({ detail: "no such stamp", code: "not_found" });
    res.json(rows[0]);
  });
} else {
  throw new Error("usage: bare-express.ts upload | json <file> | row <postgres URL>");
}

const server = app.listen(0, "127.0.0.1", () => {
  announceReady({ http: (server.address() as AddressInfo).port });
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
