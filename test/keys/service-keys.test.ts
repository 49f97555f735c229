import { generateKeyPairSync } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { maskedConfig } from "../../cli/commands/config.js";
import { ConfigError } from "../../server/config.js";
import { formatPublicKey, verifyEd25519 } from "../../server/keys/ed25519.js";
import { loadServiceKeys } from "../../server/keys/service-keys.js";
import type { Logger } from "../../server/logger.js";
import { issueKey } from "../helpers/keys.js";
import { startService } from "../helpers/service.js";
import { createIdentity, createStamp } from "../stamps/helpers.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "stampd-keys-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A logger whose every line (at trace level) lands in `lines`. */
function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: "trace" }, sink), lines };
}

const quiet = pino({ level: "silent" });
const mode = (path: string) => statSync(path).mode & 0o777;

describe("service keys in DATA_DIR", () => {
  it("are created on first start, owner-only, and the same keys are loaded on the next start", () => {
    const dir = tempDir();
    const first = loadServiceKeys({ DATA_DIR: dir }, quiet);
    expect(mode(join(dir, "keys"))).toBe(0o700);
    expect(mode(join(dir, "keys", "service-ed25519.pem"))).toBe(0o600);
    expect(mode(join(dir, "keys", "at-rest.key"))).toBe(0o600);
    const again = loadServiceKeys({ DATA_DIR: dir }, quiet);
    expect(again.signing.publicKey).toBe(first.signing.publicKey);
    expect(again.atRest.open(first.atRest.seal(Buffer.from("secret"), "id"), "id").toString()).toBe("secret");
  });

  it("sign with Ed25519: a signature verifies against the public key, not after a change", () => {
    const { signing } = loadServiceKeys({ DATA_DIR: tempDir() }, quiet);
    const message = Buffer.from("payload");
    const signature = signing.sign(message);
    expect(verifyEd25519(signing.publicKey, message, signature)).toBe(true);
    expect(verifyEd25519(signing.publicKey, Buffer.from("payloaD"), signature)).toBe(false);
  });

  it("warn when an existing key file is readable by others", () => {
    const dir = tempDir();
    loadServiceKeys({ DATA_DIR: dir }, quiet);
    chmodSync(join(dir, "keys", "at-rest.key"), 0o644);
    const { logger, lines } = capturingLogger();
    loadServiceKeys({ DATA_DIR: dir }, logger);
    expect(lines.join("")).toContain("key file is accessible to group or others");
  });
});

describe("service keys from configuration", () => {
  it("SERVICE_SIGNING_KEY_FILE names the signing key", () => {
    const dir = tempDir();
    const pair = generateKeyPairSync("ed25519");
    const file = join(dir, "signing.pem");
    writeFileSync(file, pair.privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
    const keys = loadServiceKeys({ DATA_DIR: dir, SERVICE_SIGNING_KEY_FILE: file }, quiet);
    expect(keys.signing.publicKey).toBe(formatPublicKey(pair.publicKey));
  });

  it("AT_REST_KEY and AT_REST_KEY_FILE give that key", () => {
    const dir = tempDir();
    const hex = "ab".repeat(32);
    const file = join(dir, "at-rest");
    writeFileSync(file, `${hex}\n`, { mode: 0o600 });
    const fromEnv = loadServiceKeys({ DATA_DIR: dir, AT_REST_KEY: hex }, quiet);
    const fromFile = loadServiceKeys({ DATA_DIR: dir, AT_REST_KEY_FILE: file }, quiet);
    expect(fromFile.atRest.open(fromEnv.atRest.seal(Buffer.from("s"), "a"), "a").toString()).toBe("s");
  });

  it.each<[string, (dir: string) => Record<string, string>]>([
    ["a missing SERVICE_SIGNING_KEY_FILE", (dir) => ({ SERVICE_SIGNING_KEY_FILE: join(dir, "absent.pem") })],
    [
      "a signing key that is not Ed25519",
      (dir) => {
        const file = join(dir, "ec.pem");
        writeFileSync(
          file,
          generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
            format: "pem",
            type: "pkcs8",
          }),
        );
        return { SERVICE_SIGNING_KEY_FILE: file };
      },
    ],
    [
      "both AT_REST_KEY and AT_REST_KEY_FILE",
      (dir) => ({ AT_REST_KEY: "ab".repeat(32), AT_REST_KEY_FILE: join(dir, "k") }),
    ],
    [
      "an AT_REST_KEY_FILE that holds no 256-bit hex key",
      (dir) => {
        writeFileSync(join(dir, "short"), "abcd\n");
        return { AT_REST_KEY_FILE: join(dir, "short") };
      },
    ],
  ])("refuse %s with a ConfigError", (_name, settings) => {
    const dir = tempDir();
    expect(() => loadServiceKeys({ DATA_DIR: dir, ...settings(dir) }, quiet)).toThrow(ConfigError);
  });

  it("`stampd config` masks AT_REST_KEY", () => {
    expect(maskedConfig({ AT_REST_KEY: "ab".repeat(32) }).AT_REST_KEY).toBe("****");
  });
});

it("no key material reaches the log while the service creates keys, identities and stamps", async () => {
  const { logger, lines } = capturingLogger();
  const svc = await startService({ RATE_LIMIT_ENABLED: "false", LOG_LEVEL: "trace" }, { logger });
  try {
    const { key } = await issueKey(svc);
    const identityId = await createIdentity(svc, key);
    await createStamp(svc, "logged?", { identity_id: identityId }, { key });
    const pem = readFileSync(join(svc.dataDir, "keys", "service-ed25519.pem"), "utf8");
    const pemBody = pem.split("\n")[1]!;
    const atRest = readFileSync(join(svc.dataDir, "keys", "at-rest.key"), "utf8").trim();
    const log = lines.join("");
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(pemBody);
    expect(log).not.toContain(atRest);
  } finally {
    await svc.close();
  }
});
