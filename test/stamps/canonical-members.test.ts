import { describe, expect, it } from "vitest";
import { jcs } from "../../core/jcs.js";
import { CanonicalMembers } from "../../server/stamps/canonical-members.js";

// Values written by JSON.stringify alone (members already in JCS order) and by the JCS library
// (any other order, or values JSON.stringify writes differently) must give the same text.
const cases: [string, Record<string, unknown>][] = [
  ["members in order", { a: 1, b: "x", c: null, d: true, e: [1, "2", null] }],
  ["members out of order", { b: 1, a: 2 }],
  ["nested objects in order", { a: { x: 1, y: { m: [{ p: 1, q: 2 }] } } }],
  ["nested objects out of order", { a: { y: 1, x: 2 }, b: [{ q: 1, p: 2 }] }],
  ["integer-like names (listed first by JavaScript)", { a: { "10": 1, "9": 2, b: 3 } }],
  ["names beyond ASCII, ordered by UTF-16 code units", { a: { z: 1, é: 2, "😀": 3, "\uffff": 4 } }],
  ["numbers JCS writes like ECMAScript", { a: [1e21, 1e-7, -0, 0.1, 123456789012345680000] }],
  ["strings needing escapes", { a: ['\u0000\u001f"\\\u2028', "\ud800"] }],
  ["an undefined member, left out", { a: { b: undefined, c: 1 }, d: 2 }],
  ["undefined in an array, written null", { a: [undefined, 1] }],
  ["a value with toJSON", { a: new Date("2026-01-01T00:00:00.000Z") }],
  ["an empty object and array", { a: {}, b: [] }],
];

describe("CanonicalMembers", () => {
  it.each(cases)("writes the JCS text of an object: %s", (_, object) => {
    expect(new CanonicalMembers(object, "c0").text()).toBe(jcs(object));
  });

  it.each(cases)("writes the JCS text of the object with one member more: %s", (_, object) => {
    const extra = { service: null, author: "x", service_batch: { tree_size: 2, audit_path: ["ab"] } };
    expect(new CanonicalMembers(object, "c0").textWith(extra)).toBe(jcs({ ...object, c0: extra }));
  });
});
