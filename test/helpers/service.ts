import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BuildOptions, build, type Service } from "../../server/build.js";
import { type Config, loadConfig } from "../../server/config.js";
import { listen } from "../../server/lifecycle.js";

export interface RunningService {
  service: Service;
  baseUrl: string;
  dataDir: string;
  config: Config;
  close(): Promise<void>;
}

/**
 * Starts a real service on 127.0.0.1 with an ephemeral port and a fresh SQLite data folder.
 * `env` overrides configuration the way an operator would, through variables.
 */
export async function startService(
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-test-"));
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    HOST: "127.0.0.1",
    PORT: "0",
    DATA_DIR: dataDir,
    ...env,
  });
  const service = await build(config, options);
  await listen(service.http, 0, "127.0.0.1");
  const { port } = service.http.address() as AddressInfo;
  return {
    service,
    config,
    dataDir,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      service.http.closeAllConnections();
      await new Promise<void>((resolve) => service.http.close(() => resolve()));
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
