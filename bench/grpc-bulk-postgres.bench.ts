// npm run bench -- grpc-bulk-postgres: sustained stamps/s through BatchStamp (1000 items a call, 4
// calls in flight) with stampd on PostgreSQL (a fresh schema of the machine's database, dropped
// afterwards), against the absolute target of 10 000 stamps/s (issue #34), and durability: every
// stamp stampd acknowledged is looked up in the schema after a SIGKILL. How it runs:
// bench/lib/grpc-bulk.ts.
import { grpcBulk } from "./lib/grpc-bulk.js";

await grpcBulk("postgres");
