import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findLoneSurrogate, parseIJson } from "../../core/i-json.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { TestClient } from "../ws/ws-client.js";

// RFC 7493 section 2.1: I-JSON strings are valid Unicode. "\ud800" parses in JavaScript, but a
// document holding it was stored and signed, then served as JSON that jq cannot parse and that
// another language's JCS cannot reproduce. Every place JSON is taken refuses it.
// ES2024's String.prototype.isWellFormed (in Node 20; the project's TypeScript lib is older).
const isWellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

describe("findLoneSurrogate", () => {
  it.each([
    ['"\\ud800"', "\\ud800"],
    ['"\\uDBFF"', "\\uDBFF"],
    ['"\\udc00"', "\\udc00"],
    ['"a\\ud800\\u0041"', "\\ud800"],
    ['{"k":"\\ude00\\ud83d"}', "\\ude00"],
    ['"\\ud83d\\ude00"', undefined],
    ['"\\\\ud800"', undefined],
    ['"\\\\\\ud800"', "\\ud800"],
    ['"plain"', undefined],
  ])("%s -> %s", (text, found) => {
    expect(findLoneSurrogate(text)).toBe(found);
  });

  it("agrees with String.prototype.isWellFormed on JSON.stringify of any string", () => {
    const anyUnits = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 12 })
      .map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(anyUnits, (s) => {
        const text = JSON.stringify({ s });
        expect(findLoneSurrogate(text) === undefined).toBe(isWellFormed(s));
      }),
      { numRuns: 2000 },
    );
  });

  it("makes parseIJson throw", () => {
    expect(() => parseIJson('{"a":"\\ud800"}')).toThrow(/lone surrogate \\ud800/);
  });
});

describe("the service", () => {
  let svc: RunningService;
  let key: string;
  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "false" });
    key = (await issueKey(svc)).key;
  });
  afterAll(() => svc.close());

  it("refuses a JSON body holding one with 400 invalid_json (vault metadata)", async () => {
    const res = await fetch(`${svc.baseUrl}/vault/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: '{"metadata":{"note":"\\ud800"}}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      code: "invalid_json",
      detail: expect.stringContaining("\\ud800"),
    });
  });

  it("refuses a stamp_json holding one on POST /verify", async () => {
    const res = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"stamp_json":{"description":"\\udfff"}}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("invalid_json");
  });

  it("refuses a WebSocket frame holding one with an invalid_json error", async () => {
    const client = await TestClient.connect(svc.baseUrl);
    try {
      client.send('{"type":"ping","id":"p1","data":{"x":"\\ud800"}}');
      // The frame had a valid id: the error carries it, so the client knows which request failed.
      expect(await client.next()).toMatchObject({ type: "error", id: "p1", data: { code: "invalid_json" } });
      // An id that is itself not valid Unicode is not echoed.
      client.send('{"type":"ping","id":"\\udc00"}');
      const reply = await client.next();
      expect(reply).toMatchObject({ type: "error", data: { code: "invalid_json" } });
      expect(reply).not.toHaveProperty("id");
    } finally {
      client.close();
    }
  });
});
