import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

// The upload spool (server/rest/uploads/upload-spool.ts): a POST /stamps whose file comes before any
// `generate_fp` is copied to a 0600 file in UPLOAD_SPOOL_DIR while its form arrives; the file is
// gone once the request ends, however it ends, and files a crash left are deleted at start-up.
const BOUNDARY = "spool-test-boundary";
const FILE_BYTES = 512 * 1024; // past the 256 KiB a spool keeps in memory
let spoolDir: string;
let svc: RunningService;

beforeAll(async () => {
  spoolDir = mkdtempSync(join(tmpdir(), "stampd-spool-"));
  svc = await startService({ RATE_LIMIT_ENABLED: "false", UPLOAD_SPOOL_DIR: spoolDir });
});
afterAll(async () => {
  await svc.close();
  rmSync(spoolDir, { recursive: true, force: true });
});

const spoolFiles = () => readdirSync(spoolDir);

/** A POST /stamps that has sent its whole file part (and the boundary after it), nothing more. */
function fileSentFirst() {
  const req = http.request(`${svc.baseUrl}/stamps`, {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
  req.on("error", () => {});
  const response = new Promise<{ status: number; body: Record<string, unknown> }>((resolve) =>
    req.on("response", async (res) => {
      let text = "";
      for await (const chunk of res) text += chunk;
      resolve({ status: res.statusCode!, body: JSON.parse(text) });
    }),
  );
  req.write(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n${"a".repeat(FILE_BYTES)}\r\n--${BOUNDARY}`,
  );
  return { req, response };
}

describe("a field after the file", () => {
  it("spools the file to a 0600 file, read again when the field asks for more, then deleted", async () => {
    const { req, response } = fileSentFirst();
    await vi.waitFor(() => expect(spoolFiles()).toHaveLength(1), { timeout: 10_000 });
    const [name] = spoolFiles();
    expect(name).toMatch(new RegExp(`^${process.pid}-[0-9a-f-]{36}\\.spool$`));
    expect(statSync(join(spoolDir, name!)).mode & 0o777).toBe(0o600);
    req.end(`\r\nContent-Disposition: form-data; name="preset"\r\n\r\narchival\r\n--${BOUNDARY}--\r\n`);
    const { status, body } = await response;
    expect(status).toBe(201);
    // archival turns the fingerprint on: it was computed from the spool, over the whole file.
    expect(body.has_fingerprint).toBe(true);
    const fingerprint = (body.stamp_json as { fingerprint: { standard_hash: string } }).fingerprint;
    expect(fingerprint.standard_hash).toBe(`sha3-256:${body.document_hash}`);
    expect(spoolFiles()).toEqual([]);
  });

  it("deletes the spool when the client goes away mid-form", async () => {
    const { req } = fileSentFirst();
    await vi.waitFor(() => expect(spoolFiles()).toHaveLength(1), { timeout: 10_000 });
    req.destroy();
    await vi.waitFor(() => expect(spoolFiles()).toEqual([]), { timeout: 10_000 });
  });
});

describe("start-up", () => {
  it("deletes the spool files of processes no longer running and of its own pid, and nothing else", async () => {
    const folder = mkdtempSync(join(tmpdir(), "stampd-stale-"));
    mkdirSync(folder, { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const live = process.ppid;
    const names = [`${dead}-a.spool`, `${process.pid}-b.spool`, `${live}-c.spool`, "notes.txt"];
    for (const name of names) writeFileSync(join(folder, name), "x");
    const other = await startService({ UPLOAD_SPOOL_DIR: folder });
    try {
      expect(readdirSync(folder).sort()).toEqual([`${live}-c.spool`, "notes.txt"].sort());
    } finally {
      await other.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("the room a spool leaves on its disk (UPLOAD_SPOOL_MIN_FREE_BYTES)", () => {
  let reserveDir: string;
  let reserved: RunningService;

  beforeAll(async () => {
    reserveDir = mkdtempSync(join(tmpdir(), "stampd-spool-reserve-"));
    // A reserve larger than the disk has free: every spooled upload would eat into it.
    const free = statfsSync(reserveDir);
    reserved = await startService({
      RATE_LIMIT_ENABLED: "false",
      UPLOAD_SPOOL_DIR: reserveDir,
      UPLOAD_SPOOL_MIN_FREE_BYTES: String(free.bavail * free.bsize + 2 ** 30),
    });
  });
  afterAll(async () => {
    await reserved.close();
    rmSync(reserveDir, { recursive: true, force: true });
  });

  it("refuses an upload that would spool into the reserve with 503 storage_full and Retry-After, and leaves no file", async () => {
    const form = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n${"a".repeat(FILE_BYTES)}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="preset"\r\n\r\narchival\r\n--${BOUNDARY}--\r\n`;
    const res = await fetch(`${reserved.baseUrl}/stamps`, {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: form,
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as { code: string }).code).toBe("storage_full");
    expect(readdirSync(reserveDir)).toEqual([]);
  });

  it("still takes an upload small enough to stay in memory", async () => {
    const form = new FormData();
    form.set("file", new Blob(["a".repeat(1024)]), "a.bin");
    form.set("preset", "archival");
    const res = await fetch(`${reserved.baseUrl}/stamps`, { method: "POST", body: form });
    expect(res.status).toBe(201);
  });
});
