// `stampd search` against a real service on SQLite and on PostgreSQL: by --hash, by --file hashed
// here with each supported algorithm (or the one given), paging hints, --json, and usage errors.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, type SearchFixture, searchFixture, sha256Hex } from "../stamps/search-fixture.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

describe.each(engines)("stampd search on %s", (engine) => {
  let fx: SearchFixture;
  let dir: string;
  let contract: string;
  beforeAll(async () => {
    fx = await searchFixture(engine, { RATE_LIMIT_ENABLED: "false" });
    dir = mkdtempSync(join(tmpdir(), "stampd-search-"));
    contract = join(dir, "contract.txt");
    writeFileSync(contract, fx.document);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await fx?.close();
  });

  const stampd = (...args: string[]) => runStampd(["search", ...args, ...serverArgs(fx.svc)]);

  it(
    "--hash lists the stamps newest first, with when and where to verify",
    async () => {
      const run = await stampd("--hash", `sha3-256:${fx.sha3}`);
      expect(run.code).toBe(0);
      const lines = run.out.trim().split("\n");
      expect(lines[0]).toMatch(/^STAMP\s+CREATED\s+HASH\s+VERIFY$/);
      expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([...fx.sha3Ids].reverse());
      expect(lines[1]).toContain(fx.sha3Times[4]);
      expect(lines[1]).toContain(`/verify/${fx.sha3Ids[4]}`);
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "--file hashes the file here with every algorithm and finds the stamps of each",
    async () => {
      const run = await stampd("--file", contract, "--json");
      expect(run.code).toBe(0);
      const pages = JSON.parse(run.out) as { hash: string; items: { stamp_id: string }[] }[];
      expect(pages.map((p) => p.hash)).toEqual([
        `sha3-256:${fx.sha3}`,
        `sha256:${sha256Hex(fx.document)}`,
        expect.stringMatching(/^blake3:[0-9a-f]{64}$/),
      ]);
      expect(pages[0]!.items.map((i) => i.stamp_id)).toEqual([...fx.sha3Ids].reverse());
      // The uploads again, by the SHA-256 computed with their SHA3-256.
      expect(pages[1]!.items.map((i) => i.stamp_id)).toEqual([...fx.sha3Ids].reverse());
      const table = await stampd("--file", contract);
      expect(table.code).toBe(0);
      const rows = table.out.trim().split("\n").slice(1);
      expect(rows.map((row) => row.split(/\s+/)[0])).toEqual([...fx.sha3Ids].reverse());
      expect(rows.every((row) => row.includes(`sha3-256:${fx.sha3}`))).toBe(true);
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "--file with --algorithm and --limit prints a page and how to get the next",
    async () => {
      const first = await stampd("--file", contract, "--algorithm", "sha3-256", "--limit", "3");
      expect(first.code).toBe(0);
      const hint = `more stamps of sha3-256:${fx.sha3}: add --algorithm sha3-256 --cursor ${fx.sha3Ids[2]}`;
      expect(first.out).toContain(hint);
      const next = await stampd("--file", contract, "--algorithm", "sha3-256", "--cursor", fx.sha3Ids[2]!);
      const ids = next.out
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/\s+/)[0]);
      expect(ids).toEqual([fx.sha3Ids[1], fx.sha3Ids[0]]);
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "says so when a document was never stamped, and exits 0",
    async () => {
      const other = join(dir, "other.txt");
      writeFileSync(other, "never stamped");
      const run = await stampd("--file", other);
      expect(run).toMatchObject({ code: 0, out: `no stamps of ${other} (sha3-256, sha256, blake3)\n` });
    },
    SPAWNS_TIMEOUT,
  );

  it.each([
    ["neither --hash nor --file", [], /either --hash <algorithm:hex> or --file <path>/],
    ["both", ["--hash", `sha256:${"a".repeat(64)}`, "--file", "x"], /either --hash/],
    [
      "a missing file",
      ["--file", "/nonexistent/doc.pdf"],
      /cannot read \/nonexistent\/doc.pdf: no such file/,
    ],
    [
      "--cursor over every algorithm",
      ["--file", "/etc/hostname", "--cursor", "stp_01J9Z8K3M4N5P6Q7R8S9T0V1W2"],
      /needs --algorithm/,
    ],
  ])(
    "%s is a usage error (exit 2), nothing sent",
    async (_name, args, message) => {
      const run = await stampd(...(args as string[]));
      expect(run.code).toBe(2);
      expect(run.err).toMatch(message);
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "a malformed hash is the server's 400, exit 1",
    async () => {
      const run = await stampd("--hash", "sha256:xyz");
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/validation_failed, HTTP 400/);
    },
    SPAWNS_TIMEOUT,
  );
});
