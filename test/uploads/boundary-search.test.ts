import { createRequire } from "node:module";
import busboy from "busboy";
import { describe, expect, it } from "vitest";
import { BoundarySearch, searchBoundaryNatively } from "../../server/rest/uploads/boundary-search.js";
import { SeededRandom } from "../reliability/seeded-random.js";

// streamsearch is busboy's own search (a dependency of busboy): the reference to agree with.
type OnData = (isMatch: boolean, data: Buffer | undefined, start: number, end: number, safe: boolean) => void;
interface Search {
  push(chunk: Buffer, pos?: number): number;
  destroy(): void;
}
const Streamsearch = createRequire(createRequire(import.meta.url).resolve("busboy"))("streamsearch") as new (
  needle: Buffer,
  onData: OnData,
) => Search;

/** What a search reports, as busboy would read it: the data between matches, in order. */
function run(make: (onData: OnData) => Search, chunks: Buffer[]): string[] {
  const parts: string[] = [];
  let open: Buffer[] = [];
  const search = make((isMatch, data, start, end) => {
    if (data) open.push(Buffer.from(data.subarray(start, end)));
    if (isMatch) {
      parts.push(Buffer.concat(open).toString("latin1"));
      open = [];
    }
  });
  for (const chunk of chunks) search.push(chunk, 0);
  search.destroy();
  parts.push(Buffer.concat(open).toString("latin1"));
  return parts;
}

/** Text rich in the needle's own bytes and prefixes, cut at random places (empty chunks too). */
function haystack(rand: () => number, needle: string): Buffer[] {
  const pieces = ["a", "\r", "\n", "-", "--", "\r\n", "\r\n-", needle, needle.slice(0, -1), needle.slice(1)];
  let text = "";
  while (text.length < 40 + rand() * 400) text += pieces[Math.floor(rand() * pieces.length)];
  const bytes = Buffer.from(text, "latin1");
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.floor(rand() * Math.min(24, bytes.length - at + 1));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe("BoundarySearch", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("reports what streamsearch reports (seed %i, 300 haystacks)", (seed) => {
    const seeded = new SeededRandom(seed);
    const rand = () => seeded.next();
    for (let i = 0; i < 300; i++) {
      const needle = `\r\n--${"xb-".slice(0, 1 + (i % 3))}${i % 7}`;
      const chunks = haystack(rand, needle);
      const want = run((onData) => new Streamsearch(Buffer.from(needle, "latin1"), onData), chunks);
      const got = run((onData) => new BoundarySearch(Buffer.from(needle, "latin1"), onData), chunks);
      expect(got, JSON.stringify(chunks.map((c) => c.toString("latin1")))).toEqual(want);
    }
  });

  it("takes the place of busboy's search, keeping the CRLF busboy pushed into it", async () => {
    const body = Buffer.from(
      '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--B\r\n' +
        'Content-Disposition: form-data; name="file"; filename="f"\r\n\r\n\r\n--\r\n--B--\r\n',
    );
    const parser = busboy({ headers: { "content-type": "multipart/form-data; boundary=B" } });
    searchBoundaryNatively(parser);
    expect((parser as unknown as { _bparser: unknown })._bparser).toBeInstanceOf(BoundarySearch);
    const fields: string[] = [];
    parser.on("field", (name, value) => fields.push(`${name}=${value}`));
    const file = new Promise<string>((resolve) =>
      parser.on("file", async (_name, stream) => {
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        resolve(Buffer.concat(chunks).toString());
      }),
    );
    for (let at = 0; at < body.length; at += 3) parser.write(body.subarray(at, at + 3));
    parser.end();
    expect(await file).toBe("\r\n--");
    expect(fields).toEqual(["a=x"]);
  });
});
