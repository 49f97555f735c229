import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DuplicateMemberError,
  findMemberViolation,
  MAX_JSON_DEPTH,
  NestingTooDeepError,
  parseIJson,
} from "../../core/i-json.js";

/** The repeated name the scan finds in text nested no deeper than the bound, or null. */
const findDuplicateMember = (text: string) => {
  const violation = findMemberViolation(text, Number.POSITIVE_INFINITY);
  return violation === null
    ? null
    : { pointer: violation.pointer, name: (violation as { name: string }).name };
};

describe("findMemberViolation: repeated names", () => {
  it.each([
    ["top level", '{"a":1,"b":2,"a":3}', { pointer: "", name: "a" }],
    ["nested object", '{"x":{"y":{"k":1,"k":1}}}', { pointer: "/x/y", name: "k" }],
    ["object in an array", '{"list":[{"k":1},{"k":1,"k":2}]}', { pointer: "/list/1", name: "k" }],
    ["a name written with an escape", '{"name":1,"n\\u0061me":2}', { pointer: "", name: "name" }],
    ["pointer escapes ~ and /", '{"a/b~":{"k":0,"k":0}}', { pointer: "/a~1b~0", name: "k" }],
    ["a name ending in an escaped backslash", '{"a\\\\":1,"a\\\\":2}', { pointer: "", name: "a\\" }],
    ["__proto__", '{"__proto__":1,"__proto__":2}', { pointer: "", name: "__proto__" }],
    [
      "a name repeated after many others (past the linear search)",
      `{"o":{${Array.from({ length: 40 }, (_, i) => `"m${i}":{"x":[]}`).join(",")},"m3":0}}`,
      { pointer: "/o", name: "m3" },
    ],
  ])("finds a repeat: %s", (_, text, want) => {
    expect(findDuplicateMember(text)).toEqual(want);
    expect(() => parseIJson(text)).toThrow(DuplicateMemberError);
  });

  it.each([
    ["the same name in sibling objects", '[{"k":1},{"k":2},{"k":{"k":3}}]'],
    ["names that differ only in case", '{"a":1,"A":2}'],
    ["strings holding quotes, braces and commas", '{"a":"\\"b\\":1,{\\"a\\":2}","b":"a,\\\\","c":["a","a"]}'],
    ["a value equal to a name", '{"a":"a","b":"a"}'],
    ["scalars and empty containers", '[1,"x",true,null,{},[]]'],
  ])("finds none: %s", (_, text) => {
    expect(findDuplicateMember(text)).toBeNull();
    expect(parseIJson(text)).toEqual(JSON.parse(text));
  });

  it("agrees with the members as written, on generated JSON", () => {
    // Text from random values with names drawn from a small set, so repeats are frequent once
    // objects are spliced together by hand below.
    const name = fc.constantFrom("a", "b", "\u0061", "c/d", "é", '"');
    const members = fc.array(fc.tuple(name, fc.jsonValue({ maxDepth: 2 })), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(members, { minLength: 1, maxLength: 4 }), (objects) => {
        const text = `[${objects
          .map((m) => `{${m.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`)
          .join(",")}]`;
        const repeated = objects.some((m) => new Set(m.map(([k]) => k)).size < m.length);
        expect(findDuplicateMember(text) !== null).toBe(repeated);
      }),
      { numRuns: 500 },
    );
  });

  it("reads deep nesting without recursion", () => {
    const depth = 100_000;
    expect(findDuplicateMember(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)).toBeNull();
  });
});

describe("findMemberViolation: nesting", () => {
  const nested = (depth: number, open = "[", close = "]") => `${open.repeat(depth)}${close.repeat(depth)}`;

  it("takes the bound's depth and refuses one level more, in arrays and objects", () => {
    expect(parseIJson(nested(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
    expect(() => parseIJson(nested(MAX_JSON_DEPTH + 1))).toThrow(NestingTooDeepError);
    const objects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
    expect(parseIJson(objects(MAX_JSON_DEPTH))).toBeTypeOf("object");
    expect(() => parseIJson(objects(MAX_JSON_DEPTH + 1))).toThrow(NestingTooDeepError);
  });

  it("counts open containers, not brackets seen: siblings and brackets in strings do not add up", () => {
    const wide = `[${Array.from({ length: 200 }, () => nested(MAX_JSON_DEPTH - 1)).join(",")}]`;
    expect(findMemberViolation(wide)).toBeNull();
    expect(findMemberViolation(`{"s":"${"[".repeat(500)}"}`)).toBeNull();
  });

  it("points at the container at the bound", () => {
    expect(findMemberViolation('{"a":[{"b":[[]]}]}', 4)).toEqual({ kind: "depth", pointer: "/a/0/b" });
    expect(findMemberViolation('{"a":[{"b":[[]]}]}', 5)).toBeNull();
  });

  it("reports whichever comes first in the text", () => {
    expect(findMemberViolation('{"k":1,"k":2,"d":[[[]]]}', 2)).toMatchObject({
      kind: "duplicate",
      name: "k",
    });
    expect(findMemberViolation('{"d":[[[]]],"k":1,"k":2}', 2)).toMatchObject({ kind: "depth" });
  });

  it("refuses 100 000 levels without recursion, before anything walks them", () => {
    expect(() => parseIJson(nested(100_000))).toThrow(NestingTooDeepError);
  });
});
