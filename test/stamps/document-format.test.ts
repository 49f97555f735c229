import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { formatProblem } from "../../core/format.js";
import type { StampView } from "../../server/stamps/stamp-view.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp, type StampDocument, sha3 } from "./helpers.js";
import { mutations, tampered } from "./tampering.js";

// The SDK checks stampd.stamp/v1 by hand (no schema library in a browser bundle); this holds it to
// the spec's StampDocument schema: on every document below, both must give the same verdict.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;
const spec = parse(readFileSync(new URL("../../specs/openapi.yaml", import.meta.url), "utf8"));
const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
addFormats(ajv);
ajv.addSchema({ $id: "spec", components: spec.components });
const schemaValid = ajv.compile({ $ref: "spec#/components/schemas/StampDocument" });

let plain: StampDocument;
let annotated: StampDocument;
let batchSigned: StampDocument;
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  plain = (await createStamp(svc, "doc", { preset: "standard" })).stamp_json;
  annotated = (
    await svc.service.stamps.service.createFromHash({
      contentHash: { algorithm: "blake3", hex: sha3("x") },
      accountId: null,
      description: "d",
      metadata: { k: "v" },
    })
  ).stamp.document;
  const made = await svc.service.stamps.service.createManyFromHash(
    ["a", "b", "c"].map((text) => ({
      contentHash: { algorithm: "sha3-256", hex: sha3(text) },
      accountId: null,
    })),
  );
  batchSigned = (made[1] as StampView).stamp.document;
  await svc.close();
});

type Doc = Record<string, unknown> & StampDocument;
const edits: [string, (d: Doc) => void][] = [
  ["nothing", () => {}],
  ...mutations,
  [
    "stamp_id lowercase",
    (d) => {
      d.stamp_id = d.stamp_id.toLowerCase();
    },
  ],
  [
    "created_at with an offset",
    (d) => {
      d.created_at = "2026-01-01T02:00:00+02:00";
    },
  ],
  [
    "hash uppercase",
    (d) => {
      d.document.hash = d.document.hash.toUpperCase();
    },
  ],
  [
    "size_bytes negative",
    (d) => {
      d.document.size_bytes = -1;
    },
  ],
  [
    "size_bytes fractional",
    (d) => {
      d.document.size_bytes = 1.5;
    },
  ],
  [
    "size_bytes null",
    (d) => {
      d.document.size_bytes = null;
    },
  ],
  [
    "version empty",
    (d) => {
      d.document.version = "";
    },
  ],
  [
    "version of 65 characters",
    (d) => {
      d.document.version = "v".repeat(65);
    },
  ],
  [
    "anchors repeated",
    (d) => {
      d.anchors = ["log", "log"];
    },
  ],
  [
    "anchors unknown",
    (d) => {
      d.anchors = ["polygon" as never];
    },
  ],
  [
    "anchors empty",
    (d) => {
      d.anchors = [];
    },
  ],
  [
    "trust_threshold 101",
    (d) => {
      d.trust_threshold = 101;
    },
  ],
  [
    "trust_threshold as text",
    (d) => {
      d.trust_threshold = "5" as never;
    },
  ],
  [
    "preset unknown",
    (d) => {
      d.preset = "gold" as never;
    },
  ],
  [
    "fingerprint incomplete",
    (d) => {
      d.fingerprint = { merkle_root: d.document.hash } as never;
    },
  ],
  [
    "author key uppercase",
    (d) => {
      d.author_public_key = `ed25519:${"A".repeat(64)}`;
    },
  ],
  [
    "signatures with an extra member",
    (d) => {
      (d.signatures as Record<string, unknown>).witness = null;
    },
  ],
  [
    // Object.prototype's names: the hand-written check once took them for known members.
    "a member named constructor",
    (d) => {
      d.constructor = null as never;
    },
  ],
  [
    "signatures with a member named toString",
    (d) => {
      (d.signatures as Record<string, unknown>).toString = "x" as never;
    },
  ],
  [
    "description empty",
    (d) => {
      d.description = "";
    },
  ],
  [
    "description of 1000 characters",
    (d) => {
      d.description = "é".repeat(1000);
    },
  ],
  [
    "description of 1001 characters",
    (d) => {
      d.description = "é".repeat(1001);
    },
  ],
  [
    "metadata empty",
    (d) => {
      d.metadata = {};
    },
  ],
  [
    "metadata of 33 keys",
    (d) => {
      d.metadata = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
    },
  ],
  [
    "metadata key of 65 characters",
    (d) => {
      d.metadata = { ["k".repeat(65)]: "v" };
    },
  ],
  [
    "metadata value of 513 characters",
    (d) => {
      d.metadata = { k: "v".repeat(513) };
    },
  ],
  [
    "metadata value not text",
    (d) => {
      d.metadata = { k: 1 as never };
    },
  ],
];

type Batch = NonNullable<StampDocument["signatures"]["service_batch"]>;
const batchOf = (d: Doc) => d.signatures.service_batch as Batch;
const batchEdits: [string, (d: Doc) => void][] = [
  [
    "service_batch and service both set",
    (d) => {
      d.signatures.service = "0".repeat(128);
    },
  ],
  [
    "service_batch removed, service null",
    (d) => {
      delete d.signatures.service_batch;
    },
  ],
  [
    "service_batch null",
    (d) => {
      d.signatures.service_batch = null as never;
    },
  ],
  [
    "service_batch.tree_size 0",
    (d) => {
      batchOf(d).tree_size = 0;
    },
  ],
  [
    "service_batch.leaf_index negative",
    (d) => {
      batchOf(d).leaf_index = -1;
    },
  ],
  [
    "service_batch.root uppercase",
    (d) => {
      batchOf(d).root = batchOf(d).root.toUpperCase();
    },
  ],
  [
    "service_batch.audit_path of 65 hashes",
    (d) => {
      batchOf(d).audit_path = Array(65).fill("0".repeat(64));
    },
  ],
  [
    "service_batch.audit_path with a short hash",
    (d) => {
      batchOf(d).audit_path.push("00");
    },
  ],
  [
    "service_batch.signature short",
    (d) => {
      batchOf(d).signature = "00";
    },
  ],
  [
    "service_batch without its signature",
    (d) => {
      delete (batchOf(d) as Partial<Batch>).signature;
    },
  ],
  [
    "service_batch with an extra member",
    (d) => {
      (batchOf(d) as Record<string, unknown>).size = 3;
    },
  ],
];

describe.each([
  ["a REST stamp", () => plain, edits],
  ["an annotated stamp", () => annotated, edits],
  ["a batch-signed stamp", () => batchSigned, [...edits, ...batchEdits]],
])("%s", (_kind, base, cases) => {
  it.each(cases)("edited: %s", (_name, edit) => {
    const doc = tampered(base(), edit);
    const problem = formatProblem(doc);
    expect(problem === null, `schema: ${ajv.errorsText(schemaValid.errors)}; hand check: ${problem}`).toBe(
      schemaValid(doc) as boolean,
    );
  });
});

// ajv-formats 2.1.1 accepts a date-time without an offset, which RFC 3339 (and so JSON Schema's
// `date-time`) does not allow; the hand check follows the RFC.
it("a created_at without a time offset is not RFC 3339", () => {
  const doc = tampered(plain, (d) => {
    d.created_at = "2026-01-01T00:00:00";
  });
  expect(formatProblem(doc)).toBe("created_at must be an RFC 3339 date-time");
});

it.each([null, 7, "text", [], [{}]])("%j is not a stamp document", (value) => {
  expect(formatProblem(value)).not.toBeNull();
  expect(schemaValid(value)).toBe(false);
});
