import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, publicBaseUrl } from "../../server/config.js";

describe("configuration", () => {
  it("has the documented defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      HOST: "0.0.0.0",
      PORT: 8080,
      GRPC_PORT: 50051,
      DATA_DIR: "./data",
      CORS_ORIGINS: ["*"],
      LOG_LEVEL: "info",
      MAX_UPLOAD_BYTES: 1024 ** 3,
    });
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["LOG_LEVEL", "loud"],
    ["SERVICE_BASE_URL", "not a url"],
    ["MAX_UPLOAD_BYTES", "-1"],
  ])("rejects %s=%s with one line naming the variable", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrowError(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      const message = (err as Error).message;
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toContain(name);
    }
  });

  it("trusts no proxy by default, the listed ones when set, and none with `none`", () => {
    expect(loadConfig({}).TRUSTED_PROXIES).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: "" }).TRUSTED_PROXIES).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: "10.0.0.1, 10.1.0.0/16" }).TRUSTED_PROXIES).toEqual([
      "10.0.0.1",
      "10.1.0.0/16",
    ]);
    expect(loadConfig({ TRUSTED_PROXIES: "none" }).TRUSTED_PROXIES).toEqual([]);
    expect(() => loadConfig({ TRUSTED_PROXIES: "none,10.0.0.1" })).toThrowError(ConfigError);
  });

  it("takes the S3 tile mirror's settings together: the bucket, its key id and one form of the secret", () => {
    const bucket = { LOG_TILES_S3_BUCKET: "log", LOG_TILES_S3_ACCESS_KEY_ID: "AKID" };
    const cases: [Record<string, string>, string | null][] = [
      [{ ...bucket, LOG_TILES_S3_SECRET_ACCESS_KEY_FILE: "/run/secret" }, null],
      [{ ...bucket, LOG_TILES_S3_SECRET_ACCESS_KEY: "s3cr3t", LOG_TILES_S3_PREFIX: "stampd/log/" }, null],
      [
        { LOG_TILES_S3_ENDPOINT: "http://minio:9000", LOG_TILES_S3_SECRET_ACCESS_KEY: "s3cr3t" },
        "LOG_TILES_S3_BUCKET",
      ],
      [
        { LOG_TILES_S3_BUCKET: "log", LOG_TILES_S3_SECRET_ACCESS_KEY: "s3cr3t" },
        "LOG_TILES_S3_ACCESS_KEY_ID",
      ],
      [bucket, "LOG_TILES_S3_SECRET_ACCESS_KEY_FILE"],
      [
        { ...bucket, LOG_TILES_S3_SECRET_ACCESS_KEY: "s3cr3t", LOG_TILES_S3_SECRET_ACCESS_KEY_FILE: "/f" },
        "LOG_TILES_S3_SECRET_ACCESS_KEY_FILE",
      ],
      [
        { ...bucket, LOG_TILES_S3_SECRET_ACCESS_KEY: "s3cr3t", LOG_TILES_S3_PREFIX: "/log" },
        "LOG_TILES_S3_PREFIX",
      ],
    ];
    for (const [env, refused] of cases) {
      let message = "";
      try {
        loadConfig(env);
      } catch (err) {
        message = (err as ConfigError).message;
      }
      if (refused === null) expect(message, JSON.stringify(env)).toBe("");
      else
        expect(message, JSON.stringify(env)).toMatch(
          new RegExp(`^invalid configuration: ${refused}: [^\n]+$`),
        );
      expect(message).not.toContain("s3cr3t");
    }
    expect(loadConfig({ ...bucket, LOG_TILES_S3_SECRET_ACCESS_KEY: "s" })).toMatchObject({
      LOG_TILES_S3_REGION: "us-east-1",
      LOG_TILES_S3_PATH_STYLE: false,
    });
  });

  it("builds the public base URL from SERVICE_BASE_URL without a trailing slash", () => {
    expect(publicBaseUrl(loadConfig({ SERVICE_BASE_URL: "https://stamp.example.org/" }))).toBe(
      "https://stamp.example.org",
    );
    expect(publicBaseUrl(loadConfig({ PORT: "9000" }))).toBe("http://localhost:9000");
  });

  it("stops the process with the one-line message and a non-zero status", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { ...process.env, PORT: "nope", NODE_ENV: "test" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toMatch(/^invalid configuration: PORT: /);
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
