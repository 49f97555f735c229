import { describe, expect, it } from "vitest";
import { generateKey, hashKey, parseKey } from "../../server/auth/key-format.js";

describe("API key format", () => {
  it("is svc_live_ or svc_test_ and 43 base64url characters carrying 32 random bytes", () => {
    for (const environment of ["live", "test"] as const) {
      const { key } = generateKey(environment);
      expect(key).toMatch(new RegExp(`^svc_${environment}_[A-Za-z0-9_-]{43}$`));
      const body = key.slice(`svc_${environment}_`.length);
      expect(Buffer.from(body, "base64url")).toHaveLength(32);
    }
  });

  it("never repeats a key or an id across many draws", () => {
    const drawn = Array.from({ length: 2000 }, () => generateKey("live"));
    expect(new Set(drawn.map((k) => k.key)).size).toBe(drawn.length);
    expect(new Set(drawn.map((k) => k.keyId)).size).toBe(drawn.length);
  });

  it("uses every base64url symbol, as uniformly random bytes would", () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateKey("live").key.slice(9)).join(""));
    expect(seen.size).toBe(64);
  });

  it("names a key by key_ and the first 12 characters of its random part", () => {
    const { key, keyId } = generateKey("test");
    expect(keyId).toBe(`key_${key.slice(9, 21)}`);
    expect(parseKey(key)).toEqual({ key, environment: "test", keyId });
  });

  it.each([
    ["empty", ""],
    ["wrong prefix", `svc_prod_${"a".repeat(43)}`],
    ["too short", `svc_live_${"a".repeat(42)}`],
    ["too long", `svc_live_${"a".repeat(44)}`],
    ["not base64url", `svc_live_${"a".repeat(42)}+`],
    ["padding", `svc_live_${"a".repeat(42)}=`],
    ["surrounding text", ` svc_live_${"a".repeat(43)}`],
  ])("rejects a malformed key: %s", (_name, text) => {
    expect(parseKey(text)).toBeUndefined();
  });

  it("hashes with SHA-256 (32 bytes), different for live and test keys of the same body", () => {
    const body = "a".repeat(43);
    expect(hashKey(`svc_live_${body}`)).toHaveLength(32);
    expect(hashKey(`svc_live_${body}`).equals(hashKey(`svc_test_${body}`))).toBe(false);
  });
});
