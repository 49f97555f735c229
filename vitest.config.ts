import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Chromium, openssl, PostgreSQL and Redis: provided (or one line saying how) before any test.
    globalSetup: ["test/environment/global-setup.ts"],
    environment: "node",
    env: { NODE_ENV: "test", LOG_LEVEL: "silent" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
