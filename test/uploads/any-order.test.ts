import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

// Every multipart operation through the real curl binary, with the file part first and last:
// the same answer either way (issue #20). The document is larger than what an upload spool keeps
// in memory, so a setting sent after the file goes through a spool file on disk.
const run = promisify(execFile);
let svc: RunningService;
let doc: string;
let other: string;
const spoolDir = () => join(svc.dataDir, "spool");

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  doc = join(svc.dataDir, "doc.txt");
  other = join(svc.dataDir, "other.bin");
  // Words over several lines: the fingerprint has text chunks and sections to differ by.
  const words = Array.from(
    { length: 120_000 },
    (_, i) => `word${(i * 7919) % 5000}${i % 17 === 0 ? "\n" : " "}`,
  );
  writeFileSync(doc, words.join(""));
  writeFileSync(other, randomBytes(300 * 1024));
});
afterAll(() => svc.close());

/** `curl -F` with the parts in the given order; the answer's status and JSON body. */
async function curl(
  path: string,
  forms: string[],
): Promise<{ status: number; body: Record<string, unknown> }> {
  const args = ["-sS", "-w", "\n%{http_code}", ...forms.flatMap((f) => ["-F", f]), `${svc.baseUrl}${path}`];
  const { stdout } = await run("curl", args);
  const cut = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
}

/** The same request with the file part last, then first; both answers. */
async function bothOrders(path: string, fields: string[], file = doc) {
  const last = await curl(path, [...fields, `file=@${file}`]);
  const first = await curl(path, [`file=@${file}`, ...fields]);
  // Whatever happened, no spool file outlives its request.
  expect(spoolFiles()).toEqual([]);
  return { first, last };
}

const spoolFiles = () => {
  try {
    return readdirSync(spoolDir());
  } catch {
    return [];
  }
};

/** What a stamp says about its document and settings (its id and time differ from stamp to stamp). */
const stampFacts = (body: Record<string, unknown>) => {
  const { stamp_id, created_at, verify_url, stamp_json, ...rest } = body;
  const json = stamp_json as Record<string, unknown>;
  return { ...rest, document: json.document, fingerprint: json.fingerprint, settings: json.settings };
};

describe("POST /stamps", () => {
  it.each<[string, string[]]>([
    ["a preset that turns on the fingerprint", ["preset=archival"]],
    ["generate_fp with other settings", ["generate_fp=true", "trust_threshold=2", "anchors=log"]],
    ["a preset whose fingerprint generate_fp turns off", ["preset=maximum", "generate_fp=false"]],
    ["settings that leave the reading alone", ["trust_threshold=7", "version=2.0.0"]],
  ])("%s", async (_name, fields) => {
    const { first, last } = await bothOrders("/stamps", fields);
    expect(last.status).toBe(201);
    expect(first.status).toBe(201);
    expect(stampFacts(first.body)).toEqual(stampFacts(last.body));
  });

  it("a fingerprint asked for after the file is the one asked for before it", async () => {
    const { first } = await bothOrders("/stamps", ["generate_fp=true"]);
    expect(first.body.has_fingerprint).toBe(true);
    const shadow = await fetch(`${svc.baseUrl}/fingerprint/${first.body.stamp_id}/shadow/7`);
    expect(shadow.status).toBe(200);
  });

  it("an identity of no account is refused in either order", async () => {
    const { first, last } = await bothOrders("/stamps", ["identity_id=0123456789abcdef"]);
    expect(first.status).toBe(last.status);
    expect(first.body.code).toBe(last.body.code);
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).toBeLessThan(500);
  });
});

describe("POST /hash", () => {
  it.each(["sha3-256", "sha256", "blake3"])("algorithm=%s", async (algorithm) => {
    const { first, last } = await bothOrders("/hash", [`algorithm=${algorithm}`], other);
    expect(last.status).toBe(200);
    expect(first.body).toEqual(last.body);
    expect(first.body.algorithm).toBe(algorithm);
  });
});

describe("POST /fingerprint", () => {
  it.each(["hierarchical", "flat", "content_addressed", "semantic"])("method=%s", async (method) => {
    const { first, last } = await bothOrders("/fingerprint", [`method=${method}`]);
    expect(last.status).toBe(200);
    expect(first.body).toEqual(last.body);
    expect(first.body.decomposition_method).toBe(method);
  });
});

describe("verification", () => {
  let stamp: Record<string, unknown>;
  beforeAll(async () => {
    stamp = (await curl("/stamps", [`file=@${doc}`])).body;
  });

  it("POST /verify with stamp_json before or after the file", async () => {
    const stampJson = `stamp_json=${JSON.stringify(stamp.stamp_json)}`;
    for (const file of [doc, other]) {
      const { first, last } = await bothOrders("/verify", [stampJson], file);
      expect(last.status).toBe(200);
      expect(first.body).toEqual(last.body);
      expect((first.body.details as { content_hash: string }).content_hash).toBe(
        file === doc ? "match" : "mismatch",
      );
    }
  });

  it("POST /verify with a stamp_json that is no stamp document, after the file", async () => {
    const { first, last } = await bothOrders("/verify", ['stamp_json={"a":1}']);
    expect(first.body).toEqual(last.body);
    expect((first.body.details as { content_hash: string }).content_hash).toBe("not_checked");
  });

  it("POST /stamps/{stamp_id}/verify (its form has no field but the file)", async () => {
    const { status, body } = await curl(`/stamps/${stamp.stamp_id}/verify`, [`file=@${doc}`]);
    expect(status).toBe(200);
    expect(body.content_hash_valid).toBe(true);
    const unknown = await curl("/stamps/stp_00000000000000000000000000/verify", [`file=@${doc}`]);
    expect(unknown.status).toBe(404);
  });
});
