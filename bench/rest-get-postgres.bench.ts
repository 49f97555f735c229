// npm run bench -- rest-get-postgres: GET /stamps/{id} over 50 connections, stampd on PostgreSQL (a
// fresh schema of the machine's database, dropped afterwards) against a bare express 5 app reading
// the same stamp's row by id from the same schema through a `pg` Pool and answering it as JSON
// (bench/lib/bare-express.ts row; issue #34). How it runs: bench/lib/rest-get.ts.
import { restGet } from "./lib/rest-get.js";

await restGet("postgres");
