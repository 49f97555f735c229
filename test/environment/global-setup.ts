import { provideRequirements, thisMachine } from "./requirements.js";

/**
 * Runs once before any test file (vitest.config.ts, globalSetup): `npm ci && npm test` on a fresh
 * Debian machine installs Chromium and openssl and starts PostgreSQL and Redis, or stops at once
 * with one line naming what is missing and the command that provides it.
 */
export default async function setup(): Promise<void> {
  await provideRequirements(thisMachine, (line) => process.stderr.write(`${line}\n`));
}
