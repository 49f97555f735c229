import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { Redis } from "ioredis";

/** The machine's Redis the tests share with other test runs (so every run uses its own prefix). */
export const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export const uniquePrefix = (): string => `stampd-test:${randomUUID()}:`;

/** Removes every key under `prefix`, so test runs leave the shared Redis as they found it. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 })) {
      if (keys.length) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * A redis-server of this test alone, on a free port: for what must not touch the shared one
 * (SCRIPT FLUSH, a restart, counting commands).
 */
export class PrivateRedis {
  private process: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const server = new PrivateRedis(await freePort());
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port, empty: no keys and no cached scripts. */
  async restart(): Promise<void> {
    await this.stop();
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    this.process = spawn("redis-server", args, { stdio: "ignore" });
    await this.waitUntilUp();
  }

  async stop(): Promise<void> {
    const running = this.process;
    if (!running || running.exitCode !== null) return;
    await new Promise((resolve) => {
      running.once("exit", resolve);
      running.kill("SIGTERM");
    });
  }

  /** Runs one command on a connection of its own; fails at once when the server is down. */
  async command(...args: string[]): Promise<unknown> {
    const redis = new Redis(this.url, {
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    // A refused connection is an answer here (the server is down); connect() rejects with it.
    redis.on("error", () => {});
    try {
      await redis.connect();
      return await redis.call(args[0]!, ...args.slice(1));
    } finally {
      redis.disconnect();
    }
  }

  /** Calls (and failed calls) of each command since the last `CONFIG RESETSTAT`, from INFO commandstats. */
  async commandStats(): Promise<Record<string, { calls: number; failed: number }>> {
    const info = String(await this.command("INFO", "commandstats"));
    const stats: Record<string, { calls: number; failed: number }> = {};
    for (const m of info.matchAll(/^cmdstat_(\S+?):calls=(\d+),.*failed_calls=(\d+)/gm)) {
      stats[m[1]!] = { calls: Number(m[2]), failed: Number(m[3]) };
    }
    return stats;
  }

  private async waitUntilUp(): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const up = await this.command("PING").then(
        () => true,
        () => false,
      );
      if (up) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not start on port ${this.port}`);
  }
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
