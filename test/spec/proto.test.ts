// Contract test: specs/proto/svc/v1/stamp.proto holds exactly the messages, fields (name, type,
// number), enums and RPCs of the interface specification stampd was first written to (the "seed",
// which is not in this repository). The tables below are that specification's, transcribed as
// written there: they are its record here, and a reviewer can compare the proto with them line by line.
import { fileURLToPath } from "node:url";
import * as protoLoader from "@grpc/proto-loader";
import { describe, expect, it } from "vitest";

const PROTO_ROOT = fileURLToPath(new URL("../../specs/proto", import.meta.url));
const PACKAGE = "svc.v1";

// Messages: "Message | Fields (name: type = number)", copied verbatim.
const SEED_MESSAGES: ReadonlyArray<readonly [string, string]> = [
  [
    "Stamp",
    "id: string=1, content_hash: string=2, algorithm: HashAlgorithm=3, timestamp: Timestamp=4, status: StampStatus=5, description: string=6, metadata: map<string,string>=7, proof: Proof=8",
  ],
  [
    "Proof",
    "prime_signature: string=1, witnesses: repeated string=2, chain_anchor: string=3, merkle_root: string=4, merkle_proof: repeated string=5",
  ],
  [
    "CreateStampRequest",
    "content_hash: string=1, algorithm: HashAlgorithm=2, description: string=3, metadata: map<string,string>=4",
  ],
  ["CreateStampResponse", "stamp: Stamp=1"],
  ["GetStampRequest", "stamp_id: string=1"],
  ["GetStampResponse", "stamp: Stamp=1"],
  ["VerifyRequest", "stamp_id: string=1, content_hash: string=2"],
  [
    "VerifyResponse",
    "verified: bool=1, stamp_id: string=2, content_hash: string=3, timestamp: Timestamp=4, message: string=5",
  ],
  ["BatchStampRequest", "items: repeated CreateStampRequest=1"],
  ["BatchStampResponse", "stamps: repeated Stamp=1, success_count: int32=2, failed_count: int32=3"],
  ["StreamStampRequest", "content_hash: string=1, metadata: map<string,string>=2"],
  ["StreamStampResponse", "stamp: Stamp=1, sequence: int32=2"],
  ["WatchStampsRequest", "filter: string=1"],
  ["HealthCheckRequest", "service: string=1"],
  ["HealthCheckResponse", "status: ServingStatus=1"],
];

// The two top-level enums and HealthCheckResponse's nested enum.
const SEED_ENUMS: ReadonlyArray<readonly [string, string]> = [
  ["HashAlgorithm", "HASH_ALGORITHM_UNSPECIFIED=0, HASH_ALGORITHM_SHA3_256=1, HASH_ALGORITHM_SHA256=2"],
  [
    "StampStatus",
    "STAMP_STATUS_UNSPECIFIED=0, STAMP_STATUS_PENDING=1, STAMP_STATUS_CONFIRMED=2, STAMP_STATUS_ANCHORED=3",
  ],
];
const SEED_NESTED_ENUMS: ReadonlyArray<readonly [string, string, string]> = [
  ["HealthCheckResponse", "ServingStatus", "UNKNOWN=0, SERVING=1, NOT_SERVING=2"],
];

// RPCs: RPC, kind, request, response ("stream of X" = streaming side).
type Kind = "unary" | "server streaming" | "bidirectional";
const SEED_RPCS: ReadonlyArray<readonly [string, Kind, string, string]> = [
  ["CreateStamp", "unary", "CreateStampRequest", "CreateStampResponse"],
  ["GetStamp", "unary", "GetStampRequest", "GetStampResponse"],
  ["Verify", "unary", "VerifyRequest", "VerifyResponse"],
  ["BatchStamp", "unary", "BatchStampRequest", "BatchStampResponse"],
  ["WatchStamps", "server streaming", "WatchStampsRequest", "Stamp"],
  ["StreamStamps", "bidirectional", "StreamStampRequest", "StreamStampResponse"],
  ["HealthCheck", "unary", "HealthCheckRequest", "HealthCheckResponse"],
];

// Added after the seed, with new names only (buf breaking FILE keeps the seed's intact): search by
// document hash (issue #23).
const ADDED_MESSAGES: ReadonlyArray<readonly [string, string]> = [
  ["SearchStampsRequest", "content_hash: string=1, page_size: int32=2, page_token: string=3"],
  ["StampMatch", "id: string=1, timestamp: Timestamp=2"],
  [
    "SearchStampsResponse",
    "content_hash: string=1, stamps: repeated StampMatch=2, next_page_token: string=3",
  ],
  // A stamp as a Sigstore bundle (issue #37).
  ["GetSigstoreBundleRequest", "stamp_id: string=1"],
  ["GetSigstoreBundleResponse", "bundle_json: string=1"],
];
// Fields added to a seed message after the seed, numbered after its own (proto3 fields are optional
// and old clients skip unknown ones): Verify's trust score, as REST reports it (issue #22).
const ADDED_FIELDS: Readonly<Record<string, string>> = {
  VerifyResponse: "trust_score: int32=6, trust_threshold: int32=7, trust_met: bool=8",
};
// Values added after the seed's, never renumbering them (buf breaking: FILE).
const ADDED_ENUM_VALUES: Readonly<Record<string, string>> = {
  HashAlgorithm: "HASH_ALGORITHM_BLAKE3=3",
};
const ADDED_RPCS: ReadonlyArray<readonly [string, Kind, string, string]> = [
  ["SearchStamps", "unary", "SearchStampsRequest", "SearchStampsResponse"],
  ["GetSigstoreBundle", "unary", "GetSigstoreBundleRequest", "GetSigstoreBundleResponse"],
];

// The parts of descriptor.proto that proto-loader exposes and this test reads.
interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}
interface EnumDescriptor {
  name: string;
  value: Array<{ name: string; number: number }>;
}
interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  nestedType: MessageDescriptor[];
  enumType: EnumDescriptor[];
  options: { mapEntry?: boolean } | null;
}

const SCALARS: Record<string, string> = {
  TYPE_STRING: "string",
  TYPE_BOOL: "bool",
  TYPE_INT32: "int32",
  TYPE_INT64: "int64",
  TYPE_UINT32: "uint32",
  TYPE_UINT64: "uint64",
  TYPE_BYTES: "bytes",
  TYPE_DOUBLE: "double",
  TYPE_FLOAT: "float",
};

/** "a: string=1, b: map<string,string>=2" -> ["a: string=1", "b: map<string,string>=2"]. */
function splitSeed(list: string): string[] {
  return list.split(", ").map((s) => s.trim());
}

/** Short type name as the seed writes it: the last segment of a (possibly qualified) name. */
function shortName(typeName: string): string {
  return typeName.split(".").at(-1) ?? typeName;
}

function typeOf(field: FieldDescriptor): string {
  return SCALARS[field.type] ?? shortName(field.typeName);
}

/** Renders a field in the seed's notation: `name: type=number`. */
function renderField(message: MessageDescriptor, field: FieldDescriptor): string {
  const entry = message.nestedType.find(
    (n) => n.options?.mapEntry === true && n.name === shortName(field.typeName),
  );
  let type: string;
  if (entry !== undefined) {
    const [key, value] = entry.field;
    if (key === undefined || value === undefined) throw new Error(`bad map entry ${entry.name}`);
    type = `map<${typeOf(key)},${typeOf(value)}>`;
  } else if (field.label === "LABEL_REPEATED") {
    type = `repeated ${typeOf(field)}`;
  } else {
    type = typeOf(field);
  }
  return `${field.name}: ${type}=${field.number}`;
}

function renderEnum(e: EnumDescriptor): string[] {
  return e.value.map((v) => `${v.name}=${v.number}`);
}

function kindOf(method: protoLoader.MethodDefinition<object, object>): Kind | string {
  if (!method.requestStream && !method.responseStream) return "unary";
  if (!method.requestStream && method.responseStream) return "server streaming";
  if (method.requestStream && method.responseStream) return "bidirectional";
  return "client streaming";
}

const definition = protoLoader.loadSync("svc/v1/stamp.proto", {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
});

function message(name: string): MessageDescriptor {
  const def = definition[`${PACKAGE}.${name}`];
  if (def === undefined || !("format" in def) || def.format !== "Protocol Buffer 3 DescriptorProto") {
    throw new Error(`message ${PACKAGE}.${name} is missing`);
  }
  return def.type as MessageDescriptor;
}

function enumType(name: string): EnumDescriptor {
  const def = definition[`${PACKAGE}.${name}`];
  if (def === undefined || !("format" in def) || def.format !== "Protocol Buffer 3 EnumDescriptorProto") {
    throw new Error(`enum ${PACKAGE}.${name} is missing`);
  }
  return def.type as EnumDescriptor;
}

function service(): protoLoader.ServiceDefinition {
  const def = definition[`${PACKAGE}.StampService`];
  if (def === undefined || "format" in def) throw new Error(`service ${PACKAGE}.StampService is missing`);
  return def;
}

describe("specs/proto/svc/v1/stamp.proto against the seed's tables", () => {
  it("declares exactly the seed's messages, enums and service in svc.v1, and the added ones", () => {
    const ours = Object.keys(definition)
      .filter((k) => k.startsWith(`${PACKAGE}.`))
      .map((k) => k.slice(PACKAGE.length + 1))
      .sort();
    const seed = [
      ...[...SEED_MESSAGES, ...ADDED_MESSAGES].map(([m]) => m),
      ...SEED_ENUMS.map(([e]) => e),
      "StampService",
    ].sort();
    expect(ours).toEqual(seed);
  });

  describe.each([...SEED_MESSAGES, ...ADDED_MESSAGES])("message %s", (name, fields) => {
    it("has exactly the seed's fields: name, type and number", () => {
      const m = message(name);
      const added = ADDED_FIELDS[name];
      expect(m.field.map((f) => renderField(m, f))).toEqual(
        splitSeed(added ? `${fields}, ${added}` : fields),
      );
    });
  });

  it("uses google.protobuf.Timestamp for every Timestamp field", () => {
    for (const name of ["Stamp", "VerifyResponse"]) {
      const ts = message(name).field.find((f) => f.name === "timestamp");
      expect(ts?.typeName).toBe("google.protobuf.Timestamp");
    }
  });

  it("resolves every message and enum field type inside svc.v1 (or the Timestamp import)", () => {
    for (const [name] of SEED_MESSAGES) {
      const m = message(name);
      for (const f of m.field) {
        if (f.typeName === "" || f.typeName === "google.protobuf.Timestamp") continue;
        const local = [...m.nestedType.map((n) => n.name), ...m.enumType.map((e) => e.name)];
        const known = local.includes(f.typeName) || `${PACKAGE}.${f.typeName}` in definition;
        expect(known, `${name}.${f.name}: ${f.typeName}`).toBe(true);
      }
    }
  });

  describe.each(SEED_ENUMS)("enum %s", (name, values) => {
    it("has exactly the seed's values and numbers, then the added ones", () => {
      const added = ADDED_ENUM_VALUES[name];
      expect(renderEnum(enumType(name))).toEqual(splitSeed(added ? `${values}, ${added}` : values));
    });
  });

  describe.each(SEED_NESTED_ENUMS)("enum %s.%s", (owner, name, values) => {
    it("is nested in its message with exactly the seed's values and numbers", () => {
      const e = message(owner).enumType.find((x) => x.name === name);
      expect(e, `${owner}.${name}`).toBeDefined();
      expect(renderEnum(e as EnumDescriptor)).toEqual(splitSeed(values));
    });
  });

  it("service StampService has exactly the seed's seven RPCs and the added ones", () => {
    expect(Object.keys(service()).sort()).toEqual([...SEED_RPCS, ...ADDED_RPCS].map(([rpc]) => rpc).sort());
  });

  describe.each([...SEED_RPCS, ...ADDED_RPCS])("rpc %s", (rpc, kind, request, response) => {
    it(`is ${kind}: ${request} -> ${response}`, () => {
      const method = service()[rpc];
      expect(method, rpc).toBeDefined();
      if (method === undefined) return;
      expect(method.path).toBe(`/${PACKAGE}.StampService/${rpc}`);
      expect(kindOf(method)).toBe(kind);
      expect((method.requestType.type as MessageDescriptor).name).toBe(request);
      expect((method.responseType.type as MessageDescriptor).name).toBe(response);
      // The request and response are the svc.v1 messages of that name, not same-named others.
      expect(method.requestType.type).toEqual(message(request));
      expect(method.responseType.type).toEqual(message(response));
    });
  });
});
