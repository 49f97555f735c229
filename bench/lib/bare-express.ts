// The REST baselines: a bare express 5 app in a process of its own, with none of stampd's
// middleware (request id, CORS, auth, limiter, OpenAPI validation) and no domain work.
//   upload: POST /upload parses the multipart body with busboy, as stampd does, reads the file part
//           to its end and answers a small JSON.
//   json <file>: GET /json answers the JSON value in <file> (a stamp response), serialised per request.
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import busboy from "busboy";
import express from "express";
import { announceReady } from "./processes.js";

const [mode, file] = process.argv.slice(2);
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
} else if (mode === "json" && file) {
  const body = JSON.parse(readFileSync(file, "utf8")) as unknown;
  app.get("/json", (_req, res) => void res.json(body));
} else {
  throw new Error("usage: bare-express.ts upload | json <file>");
}

const server = app.listen(0, "127.0.0.1", () => {
  announceReady({ http: (server.address() as AddressInfo).port });
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
