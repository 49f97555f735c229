import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AssembledService, type BuildOptions, build } from "../../server/build.js";
import { type Config, loadConfig } from "../../server/config.js";
import { listen, shutdownGracefully } from "../../server/lifecycle.js";

export interface RunningService {
  service: AssembledService;
  baseUrl: string;
  /** http://127.0.0.1:<port> of the gRPC listener (HTTP/2 cleartext). */
  grpcUrl: string;
  grpcPort: number;
  /** http://127.0.0.1:<port> of the METRICS_PORT listener, when the service has one. */
  metricsUrl?: string;
  dataDir: string;
  config: Config;
  close(): Promise<void>;
}

/**
 * Starts a real service on 127.0.0.1 with an ephemeral port (or `env.PORT`) and a fresh SQLite data folder.
 * `env` overrides configuration the way an operator would, through variables.
 */
export async function startService(
  env: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<RunningService> {
  // A caller that passes DATA_DIR keeps its folder (e.g. to restart on the same data); otherwise
  // each service gets a fresh folder that close() removes.
  const ownDir = !env.DATA_DIR;
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "stampd-test-"));
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    HOST: "127.0.0.1",
    PORT: "0",
    DATA_DIR: dataDir,
    // The proof pipeline runs when a test calls service.proofs.pipeline.tick(), not on a timer,
    // so a stamp's state never changes under a test that did not ask for it.
    BATCH_INTERVAL_MS: "3600000",
    // Suites speak for many clients through X-Forwarded-For from this machine, as from a proxy on
    // it; the service's own default trusts none (tests of that pass TRUSTED_PROXIES: "none").
    TRUSTED_PROXIES: "127.0.0.1/8,::1",
    ...env,
  });
  const service = await build(config, options);
  // PORT (default 0) lets a test start a service again on the port a stopped one used.
  await listen(service.http, config.PORT, "127.0.0.1");
  await listen(service.grpc.server, 0, "127.0.0.1");
  const { port } = service.http.address() as AddressInfo;
  const grpcPort = (service.grpc.server.address() as AddressInfo).port;
  if (service.metricsServer) await listen(service.metricsServer, config.METRICS_PORT!, "127.0.0.1");
  const metricsPort = (service.metricsServer?.address() as AddressInfo | undefined)?.port;
  return {
    service,
    config,
    dataDir,
    baseUrl: `http://127.0.0.1:${port}`,
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    grpcPort,
    metricsUrl: metricsPort === undefined ? undefined : `http://127.0.0.1:${metricsPort}`,
    async close() {
      await shutdownGracefully(service, 0);
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
