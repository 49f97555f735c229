import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

// Issue #21 finding 5: three parallel 54 MB /fingerprint/compare bodies from one address took the
// process from 282 to 619 MB. One client now has at most MAX_LARGE_BODIES_PER_CLIENT bodies above
// MAX_JSON_BYTES read at once; one more is a 429 before its body is read. MAX_JSON_BYTES is small
// here so that "large" is a few KiB.
const MAX_JSON_BYTES = 1024;
const LARGE = 4096;
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false", MAX_JSON_BYTES: String(MAX_JSON_BYTES) });
});
afterAll(() => svc.close());

/** A JSON body of exactly `size` bytes that is not a valid comparison (a 400 once read). */
const body = (size: number) => {
  const head = '{"fingerprint1":{}}';
  return head + " ".repeat(size - head.length);
};

/** A POST /fingerprint/compare whose body is sent in full, from `client` (X-Forwarded-For). */
async function compare(
  size: number,
  client?: string,
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(`${svc.baseUrl}/fingerprint/compare`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(client ? { "x-forwarded-for": client } : {}) },
    body: body(size),
  });
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get("retry-after") };
}

/** A large body of which only the first bytes are sent until `finish()`; resolves with its status. */
function heldLarge() {
  const { hostname, port } = new URL(svc.baseUrl);
  const text = body(LARGE);
  const req = http.request({
    host: hostname,
    port,
    method: "POST",
    path: "/fingerprint/compare",
    headers: { "content-type": "application/json", "content-length": String(LARGE) },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.once("response", (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.once("error", reject);
  });
  req.write(text.slice(0, 100));
  return { status, finish: () => req.end(text.slice(100)) };
}

/** Sends large bodies until one is refused: the held one is counted once the server has seen it. */
async function untilRefused() {
  for (let attempt = 0; attempt < 100; attempt++) {
    const reply = await compare(LARGE);
    if (reply.status === 429) return reply;
    expect(reply.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("a second large body from the same client was never refused");
}

describe("large JSON bodies per client", () => {
  it("a second one at once from the same address is 429 with Retry-After; others are not held up", async () => {
    const held = heldLarge();
    const refused = await untilRefused();
    expect(refused.retryAfter).toBe("1");
    expect(refused.body).toMatchObject({ error: "rate_limit_exceeded", retry_after: 1, tier: "anonymous" });
    expect(String(refused.body.message)).toContain("MAX_JSON_BYTES");
    // Small bodies from the same client, and large ones from another client, go on.
    expect((await compare(512)).status).toBe(400);
    expect((await compare(LARGE, "203.0.113.9")).status).toBe(400);
    held.finish();
    expect(await held.status).toBe(400);
    // Once the first is answered, the next large body of that client is read.
    expect((await compare(LARGE)).status).toBe(400);
  });
});
