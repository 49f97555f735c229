// Entry point of a stampd server process for the benchmarks (bench/lib/stampd.ts); prints
// `ready {"http":<port>,"grpc":<port>}` once both listeners accept connections.
import { announceReady } from "./processes.js";
import { startStampd } from "./stampd.js";

const { ports } = await startStampd();
announceReady(ports);
