// A stampd REST server for bench/ratelimit.bench.ts, configured by environment variables like the
// real one, but with limits so high that nothing is throttled: the benchmark measures the limiter's
// cost, not its refusals. Prints "listening <port>" once it accepts connections.
import type { AddressInfo } from "node:net";
import { build } from "../../server/build.js";
import { loadConfig } from "../../server/config.js";
import { listen } from "../../server/lifecycle.js";
import { createLogger } from "../../server/logger.js";
import { openRateLimiter } from "../../server/ratelimit/open.js";

const unlimited = { perMinute: 1e12, perHour: 1e12, burst: 1e12 };
const config = loadConfig();
const logger = createLogger(config);
const tiers = { anonymous: unlimited, authenticated: unlimited, premium: unlimited, internal: unlimited };
const rateLimiter = await openRateLimiter(config, { logger, tiers });
const service = await build(config, { logger, rateLimiter });
await listen(service.http, 0, "127.0.0.1");
console.log(`listening ${(service.http.address() as AddressInfo).port}`);
process.on("SIGTERM", () => {
  service.http.closeAllConnections();
  service.http.close(() => void service.close().then(() => process.exit(0)));
});
