// npm run bench -- grpc-bulk: sustained stamps/s through BatchStamp (1000 items a call, 4 calls in
// flight) and StreamStamps (16 bidirectional streams, each keeping up to 64 requests unanswered) on
// SQLite, against the absolute target of 50 000 stamps/s, and durability: every stamp stampd
// acknowledged is looked up in its SQLite file after a SIGKILL. How it runs: bench/lib/grpc-bulk.ts.
import { grpcBulk } from "./lib/grpc-bulk.js";

await grpcBulk("sqlite");
