// npm run bench -- rest-create: POST /stamps with a 1 KiB file over 50 connections on SQLite,
// against two baselines: a bare express 5 app that parses the same multipart body with busboy and
// answers a small JSON (bench/lib/bare-express.ts), and the obvious stamping server
// (bench/lib/express-stamp.ts: express + busboy, SHA3-256, an Ed25519 signature, one SQLite row per
// request with synchronous=FULL; issue #24). How it runs: bench/lib/rest-create.ts.
import { restCreate } from "./lib/rest-create.js";

await restCreate("sqlite");
