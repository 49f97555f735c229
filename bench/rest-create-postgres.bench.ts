// npm run bench -- rest-create-postgres: POST /stamps with a 1 KiB file over 50 connections, stampd
// on PostgreSQL (a fresh schema of the machine's database, dropped afterwards) against the obvious
// PostgreSQL stamping server (bench/lib/express-stamp.ts with a postgres URL: express 5 + busboy,
// SHA3-256, a node:crypto Ed25519 signature, one INSERT per request through a `pg` Pool, answering
// JSON; issue #34). How it runs: bench/lib/rest-create.ts.
import { restCreate } from "./lib/rest-create.js";

await restCreate("postgres");
