import { createServer } from "node:net";
import { type RunningService, startService } from "../helpers/service.js";

/**
 * A service whose public base URL (SERVICE_BASE_URL, which every page link and asset uses) is the
 * address it really listens on: a free port is picked first, since port 0 is only known after
 * listening. Rate limiting is off: the tests load pages and assets in quick succession.
 */
export async function startPagesService(env: Record<string, string> = {}): Promise<RunningService> {
  const port = await freePort();
  return startService({
    PORT: String(port),
    SERVICE_BASE_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_ENABLED: "false",
    ...env,
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
