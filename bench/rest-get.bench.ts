// npm run bench -- rest-get: GET /stamps/{id} over 50 connections on SQLite, against a bare express
// 5 app answering a fixed JSON value of the same size: the very response stampd gave for that stamp
// (bench/lib/bare-express.ts serialises it per request, as stampd does). How it runs:
// bench/lib/rest-get.ts.
import { restGet } from "./lib/rest-get.js";

await restGet("sqlite");
