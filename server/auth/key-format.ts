import { createHash, randomBytes } from "node:crypto";

export type KeyEnvironment = "live" | "test";

/** `svc_live_` or `svc_test_` and 43 base64url characters: 32 random bytes, 256 bits (design.md). */
const keyPattern = /^svc_(live|test)_([A-Za-z0-9_-]{43})$/;

/**
 * The first characters of the random part name the key: they index its row, so the secret is never
 * looked up by value and is compared in constant time. They are public (listings, rate-limit
 * buckets, logs); the remaining 31 characters (184 bits) stay secret.
 */
const idChars = 12;

export interface ParsedKey {
  key: string;
  environment: KeyEnvironment;
  keyId: string;
}

/** A fresh key and its id; the key text exists only in the caller's hands after this. */
export function generateKey(environment: KeyEnvironment): ParsedKey {
  const key = `svc_${environment}_${randomBytes(32).toString("base64url")}`;
  return parseKey(key)!;
}

/** The key's parts, or undefined when the text is not a well-formed key. */
export function parseKey(text: string): ParsedKey | undefined {
  const match = keyPattern.exec(text);
  if (!match) return undefined;
  const [, environment, body] = match;
  return { key: text, environment: environment as KeyEnvironment, keyId: `key_${body!.slice(0, idChars)}` };
}

/** What is stored instead of the key: its SHA-256 (the key has 256 random bits, so no slow hash). */
export function hashKey(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}
