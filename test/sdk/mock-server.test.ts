// `npm run mock` (issue #36): the SDK's stamps.search() iterator over the Prism mock comes to an end
// (the spec's first example is a last page), a named example gives a page with more, and
// `--help` prints the usage instead of starting a server.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { createClient } from "../../sdk/src/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const hash = `sha3-256:${"a1".repeat(32)}`;

let prism: RunningPrism;
beforeAll(async () => {
  prism = await startPrism({ mode: "mock" });
}, 120_000);
afterAll(() => prism?.stop());

describe("the Prism mock", () => {
  it("ends a for-await over stamps.search(): its default page is the last one", async () => {
    const client = createClient({ baseUrl: prism.url });
    const ids: string[] = [];
    for await (const match of client.stamps.search({ hash })) {
      ids.push(match.stamp_id);
      // A mock whose every page has a next_cursor would loop for ever: fail instead.
      if (ids.length > 10) break;
    }
    expect(ids).toEqual(["stp_01JCZ2R7D3E4F5G6H7J8K9M0N1"]);
  });

  it("serves a page with a next_cursor when asked for the more_pages example", async () => {
    const client = createClient({ baseUrl: prism.url });
    const page = await client.stamps.search({ hash }, { headers: { Prefer: "example=more_pages" } });
    expect(page.next_cursor).toBe("stp_01JCZ2R7D3E4F5G6H7J8K9M0N1");
    expect(page.hasNextPage()).toBe(true);
  });

  it("npm run mock -- --help prints the usage and exits", async () => {
    // A mock that started instead would never exit: the timeout kills it and the test fails.
    const { stdout } = await promisify(execFile)("npm", ["run", "-s", "mock", "--", "--help"], {
      cwd: root,
      timeout: 30_000,
    });
    expect(stdout).toMatch(/^Usage: npm run mock/);
    expect(stdout).toContain("--port");
  });
});
