import { hexToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../core/checkpoint.js";
import { verifyConsistency, verifyInclusion } from "../../core/merkle.js";
import type { components } from "../../gen/openapi/types.js";
import { getJson, stampHash, startProofService } from "../proofs/helpers.js";

type LogInfo = components["schemas"]["LogInfo"];
type Consistency = components["schemas"]["LogConsistencyProof"];
type Inclusion = components["schemas"]["LogInclusionProof"];

const SIZE = 64;
let running: Awaited<ReturnType<typeof startProofService>>;
let trusted: string[];
/** The checkpoint note served after each append: notes[n] is the tree of n entries. */
const notes: string[] = [];

beforeAll(async () => {
  running = await startProofService({ LOG_ORIGIN: "log.stampd.test/main" });
  const { svc, tick } = running;
  trusted = [(await getJson<LogInfo>(svc, "/log")).verifier_key];
  notes.push(await (await fetch(`${svc.baseUrl}/log/checkpoint`)).text());
  for (let n = 1; n <= SIZE; n++) {
    await stampHash(svc);
    await tick();
    notes.push(await (await fetch(`${svc.baseUrl}/log/checkpoint`)).text());
  }
});
afterAll(() => running?.svc.close());

describe("the transparency log over REST", () => {
  it("serves a C2SP checkpoint signed by its verifier key after every append", async () => {
    const checkpoints = await Promise.all(notes.map((note) => verifyCheckpoint(note, trusted)));
    expect(checkpoints.map((c) => c.treeSize)).toEqual(Array.from({ length: SIZE + 1 }, (_, n) => n));
    expect(checkpoints.every((c) => c.origin === "log.stampd.test/main")).toBe(true);
    expect(notes[3]).toMatch(
      /^log\.stampd\.test\/main\n3\n[A-Za-z0-9+/]{43}=\n\n\u2014 log\.stampd\.test\/main [A-Za-z0-9+/]{91}=\n$/,
    );
  });

  it("proves consistency between every pair of its checkpoints", async () => {
    const roots = (await Promise.all(notes.map((note) => verifyCheckpoint(note, trusted)))).map(
      (c) => c.rootHash,
    );
    const failed: string[] = [];
    for (let m = 0; m <= SIZE; m++) {
      const answers = await Promise.all(
        Array.from({ length: SIZE - m + 1 }, (_, i) =>
          getJson<Consistency>(running.svc, `/log/consistency?first=${m}&second=${m + i}`),
        ),
      );
      for (const { first, second, proof } of answers) {
        if (!verifyConsistency(first, second, roots[first]!, roots[second]!, proof.map(hexToBytes))) {
          failed.push(`${first}->${second}`);
        }
      }
    }
    expect(failed).toEqual([]);
  });

  it("proves every entry's inclusion in the latest checkpoint", async () => {
    const { rootHash } = await verifyCheckpoint(notes[SIZE]!, trusted);
    for (let index = 0; index < SIZE; index++) {
      const { leaf_hash, proof } = await getJson<Inclusion>(
        running.svc,
        `/log/inclusion?index=${index}&tree_size=${SIZE}`,
      );
      expect(verifyInclusion(hexToBytes(leaf_hash), index, SIZE, proof.map(hexToBytes), rootHash)).toBe(true);
    }
  });

  it("answers 400 for sizes beyond the log", async () => {
    const base = running.svc.baseUrl;
    for (const path of [
      `/log/consistency?first=3&second=${SIZE + 1}`,
      "/log/consistency?first=5&second=4",
      `/log/inclusion?index=${SIZE}&tree_size=${SIZE}`,
      `/log/inclusion?index=0&tree_size=${SIZE + 1}`,
    ]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(400);
    }
  });
});
