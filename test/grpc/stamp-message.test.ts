import { create, equals, toBinary, toJson } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { ProofSchema, StampSchema } from "../../gen/proto/svc/v1/stamp_pb.js";
import { algorithmEnum, toStampMessage } from "../../server/grpc/stamp-message.js";
import type { StampView } from "../../server/stamps/stamp-view.js";

const proof = {
  batchId: "bat_01JD3Y2B8C4D6E7F9G0H1J2K3M",
  leafIndex: 1,
  treeSize: 2,
  merkleRoot: "ab".repeat(32),
  merkleProof: ["cd".repeat(32)],
  primeSignature: "ef".repeat(64),
  witnesses: ["log:7"],
  chainAnchor: "",
};

function view(createdAt: string, overrides: Partial<StampView> = {}, annotations = {}): StampView {
  const document = {
    created_at: createdAt,
    document: { algorithm: "sha256", hash: "01".repeat(32) },
    ...annotations,
  };
  return {
    stamp: { id: "stp_01JD3Y2B8C4D6E7F9G0H1J2K3M", document },
    status: "pending",
    proof: null,
    ...overrides,
  } as unknown as StampView;
}

/** The message as `create()` makes it from the same view (what toStampMessage wrote before). */
function created(v: StampView) {
  const { document } = v.stamp;
  return create(StampSchema, {
    id: v.stamp.id,
    contentHash: `${document.document.algorithm}:${document.document.hash}`,
    algorithm: algorithmEnum[document.document.algorithm],
    timestamp: timestampFromDate(new Date(document.created_at)),
    status: { pending: 1, confirmed: 2, anchored: 3 }[v.status],
    description: document.description ?? "",
    metadata: document.metadata ?? {},
    proof: v.proof ? create(ProofSchema, v.proof) : undefined,
  });
}

const cases: [string, StampView][] = [
  ["pending, no annotations", view("2026-01-01T00:00:00.000Z")],
  ["milliseconds", view("2026-11-26T21:30:45.123Z")],
  ["before 1970", view("1969-12-31T23:59:59.999Z")],
  ["annotated", view("2026-01-01T00:00:00.001Z", {}, { description: "d", metadata: { b: "2", a: "1" } })],
  ["confirmed, with its proof", view("2026-01-01T00:00:00.000Z", { status: "confirmed", proof })],
];

describe("toStampMessage", () => {
  it.each(cases)("writes the message create() makes, byte for byte: %s", (_, v) => {
    const message = toStampMessage(v);
    expect(equals(StampSchema, message, created(v))).toBe(true);
    expect(toBinary(StampSchema, message)).toEqual(toBinary(StampSchema, created(v)));
    expect(toJson(StampSchema, message)).toEqual(toJson(StampSchema, created(v)));
  });
});
