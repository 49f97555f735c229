import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    env: { NODE_ENV: "test", LOG_LEVEL: "silent" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
