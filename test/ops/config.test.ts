import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stampd } from "./cli.js";

/** Starts the real server process (server/main.ts, which `npm start` runs compiled) and waits for it to exit. */
function startServer(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { ...process.env, NODE_ENV: "test", PORT: "0", GRPC_PORT: "0", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    // A value that is not refused would start a server: never let it outlive the test.
    const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(guard);
      resolve({ code, stderr, stdout });
    });
  });
}

describe("a bad setting stops the server at start", () => {
  it.each([
    ["PORT", "abc", /^invalid configuration: PORT: must be a whole number from 0 to 65535$/],
    [
      "RATE_LIMIT_ALGORITHM",
      "nope",
      /^invalid configuration: RATE_LIMIT_ALGORITHM: must be one of token_bucket, sliding_window$/,
    ],
    [
      "LOG_LEVEL",
      "loud",
      /^invalid configuration: LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent$/,
    ],
    [
      "RATE_LIMIT_ENABLED",
      "maybe",
      /^invalid configuration: RATE_LIMIT_ENABLED: must be one of .*true, false/,
    ],
    ["BATCH_MAX", "0", /^invalid configuration: BATCH_MAX: must be a whole number from 1 to 100000$/],
    [
      "OTS_CALENDAR_URLS",
      "a,b",
      /^invalid configuration: OTS_CALENDAR_URLS: each entry must be an absolute URL/,
    ],
    ["DATABASE_URL", "mysql://db/stampd", /^invalid configuration: DATABASE_URL: unsupported scheme/],
  ])(
    "%s=%s: exit code 2, one line on stderr naming it and what it accepts, no stack trace",
    async (name, value, line) => {
      const { code, stderr, stdout } = await startServer({ [name]: value });
      expect(code).toBe(2);
      const lines = stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stdout).toBe("");
    },
  );
});

describe("an environment problem at start", () => {
  it.each([
    ["PostgreSQL unreachable", { DATABASE_URL: "postgres://127.0.0.1:1/test" }, /ECONNREFUSED/],
    ["the REST port taken", { PORT: "<taken>" }, /EADDRINUSE/],
  ])("%s: exit code 1 and one line naming it, no stack trace", async (_name, env, cause) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = String((taken.address() as AddressInfo).port);
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-start-"));
    try {
      const withPort = Object.fromEntries(
        Object.entries(env).map(([k, v]) => [k, v === "<taken>" ? port : v]),
      );
      const { code, stderr } = await startServer({ DATA_DIR: dataDir, HOST: "127.0.0.1", ...withPort });
      expect(code).toBe(1);
      const lines = stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^stampd: cannot start: /);
      expect(lines[0]).toMatch(cause);
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("stampd config", () => {
  const secrets = {
    DATABASE_URL: "postgres://stampd:db-hunter2@db.internal:5432/stampd?sslmode=require",
    REDIS_URL: "rediss://default:redis-hunter2@cache.internal:6380",
    AT_REST_KEY: "a1".repeat(32),
    ETHEREUM_RPC_URL: "https://mainnet.example-rpc.io/v3/rpc-hunter2",
    TSA_URL: "https://tsa.example/tsr?api_key=tsa-hunter2",
    OTS_CALENDAR_URLS: "https://user:ots-hunter2@calendar.example",
  };

  it("prints every setting with each secret masked and the rest readable", async () => {
    const { code, stdout, stderr } = await stampd(
      { ...secrets, SERVICE_SIGNING_KEY_FILE: "/etc/stampd/signing.pem", PORT: "9000" },
      "config",
    );
    expect(code, stderr).toBe(0);
    for (const value of [
      "db-hunter2",
      "redis-hunter2",
      secrets.AT_REST_KEY,
      "rpc-hunter2",
      "tsa-hunter2",
      "ots-hunter2",
    ]) {
      expect(stdout).not.toContain(value);
    }
    const shown = JSON.parse(stdout);
    expect(shown).toMatchObject({
      PORT: 9000,
      DATABASE_URL: "postgres://stampd:****@db.internal:5432/stampd?sslmode=require",
      REDIS_URL: "rediss://default:****@cache.internal:6380",
      AT_REST_KEY: "****",
      ETHEREUM_RPC_URL: "https://mainnet.example-rpc.io/****",
      TSA_URL: "https://tsa.example/tsr?api_key=****",
      OTS_CALENDAR_URLS: ["https://user:****@calendar.example/"],
      // Where the key lives is not a secret, and the operator wants to see it.
      SERVICE_SIGNING_KEY_FILE: "/etc/stampd/signing.pem",
    });
  });

  it("refuses a bad value with the same one line as the server", async () => {
    const { code, stderr } = await stampd({ PORT: "abc" }, "config");
    expect(code).toBe(2);
    expect(stderr.trimEnd()).toBe("invalid configuration: PORT: must be a whole number from 0 to 65535");
  });
});
