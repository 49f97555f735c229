import http2 from "node:http2";
import type { DescMethod } from "@bufbuild/protobuf";
import { StampService } from "../../../gen/proto/svc/v1/stamp_pb.js";
import { issueKey } from "../../helpers/keys.js";
import type { RunningService } from "../../helpers/service.js";
import { Rng } from "../random.js";
import { count, type FuzzFailure, type SurfaceReport } from "../report.js";
import { decodes, randomMessage, spoil } from "./messages.js";

/** gRPC status codes by name (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
const names = Object.fromEntries(Object.entries(Code).map(([k, v]) => [v, k])) as Record<number, string>;

/** The codes each method's comment in stamp.proto documents, besides OK. */
const documented: Record<string, number[]> = {
  CreateStamp: [Code.INVALID_ARGUMENT, Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED],
  GetStamp: [Code.INVALID_ARGUMENT, Code.NOT_FOUND, Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED],
  Verify: [Code.INVALID_ARGUMENT, Code.NOT_FOUND, Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED],
  BatchStamp: [Code.INVALID_ARGUMENT, Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED],
  // The fuzzer ends a watch with a short deadline.
  WatchStamps: [Code.INVALID_ARGUMENT, Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED, Code.DEADLINE_EXCEEDED],
  StreamStamps: [
    Code.INVALID_ARGUMENT,
    Code.UNAUTHENTICATED,
    Code.RESOURCE_EXHAUSTED,
    Code.DEADLINE_EXCEEDED,
  ],
  HealthCheck: [Code.NOT_FOUND, Code.UNAUTHENTICATED],
  SearchStamps: [Code.INVALID_ARGUMENT, Code.UNAUTHENTICATED, Code.RESOURCE_EXHAUSTED],
  GetSigstoreBundle: [
    Code.INVALID_ARGUMENT,
    Code.NOT_FOUND,
    Code.FAILED_PRECONDITION,
    Code.UNAUTHENTICATED,
    Code.RESOURCE_EXHAUSTED,
  ],
};
/** How long a streaming call may run before the fuzzer's deadline ends it. */
const STREAM_DEADLINE = "300m";
const ANSWER_TIMEOUT_MS = 15_000;

interface Call {
  method: DescMethod;
  /** The request's DATA bytes: length-prefixed messages, possibly malformed. */
  body: Buffer;
  headers: Record<string, string>;
  mutation: string;
  /** The codes the call may end with. */
  allowed: number[];
}

interface Answer {
  httpStatus: number;
  grpcStatus: number | undefined;
  grpcMessage: string;
  messages: Buffer[];
}

/**
 * Fuzzes svc.v1.StampService over raw HTTP/2 with gRPC framing (node:http2, so malformed frames
 * go out as built): random messages of each method's request type, spoiled protobuf bytes, and
 * broken framing (a length that lies, the compressed flag without an encoding, no message or two
 * for a unary method). Every call must end with a documented status, never UNKNOWN or INTERNAL;
 * every OK response must decode; the server must answer HealthCheck afterwards.
 */
export async function fuzzGrpc(
  svc: RunningService,
  options: { seed: number; count: number },
): Promise<SurfaceReport> {
  const report: SurfaceReport = { surface: "grpc", requests: 0, failures: [], outcomes: {} };
  const keys = await Promise.all(Array.from({ length: 8 }, () => issueKey(svc, { tier: "internal" })));
  let session = http2.connect(svc.grpcUrl);
  session.on("error", () => {});
  const methods = StampService.methods;
  for (let index = 0; index < options.count; index++) {
    const rng = Rng.forItem(options.seed, index);
    const call = makeCall(rng, rng.pick(methods), rng.pick(keys).key);
    report.requests++;
    if (session.closed || session.destroyed) {
      session = http2.connect(svc.grpcUrl);
      session.on("error", () => {});
    }
    const problems = await run(session, call).then(
      (answer) => {
        count(report.outcomes, names[answer.grpcStatus ?? -1] ?? `http:${answer.httpStatus}`);
        return judge(call, answer);
      },
      (err: Error) => {
        count(report.outcomes, "no-answer");
        return [`no answer: ${err.message}`];
      },
    );
    if (problems.length > 0) report.failures.push(failure(index, call, problems));
  }
  const health = StampService.methods.find((m) => m.name === "HealthCheck")!;
  const last = await run(session, {
    method: health,
    body: frame(new Uint8Array()),
    headers: {},
    mutation: "health",
    allowed: [Code.OK],
  }).catch(() => undefined);
  report.requests++;
  if (last?.grpcStatus !== Code.OK) {
    report.failures.push({
      surface: "grpc",
      index: options.count,
      target: "HealthCheck",
      mutation: "after the run",
      request: "(empty HealthCheckRequest)",
      problems: ["the server did not answer SERVING after the run"],
    });
  }
  session.close();
  return report;
}

function makeCall(rng: Rng, method: DescMethod, key: string): Call {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (method.methodKind !== "unary") headers["grpc-timeout"] = STREAM_DEADLINE;
  const ok = [Code.OK, ...documented[method.name]!];
  const count = method.methodKind === "bidi_streaming" ? 1 + rng.int(3) : 1;
  const messages = Array.from({ length: count }, () => randomMessage(rng, method.input));
  const choice = rng.int(10);
  if (choice < 4)
    return {
      method,
      body: Buffer.concat(messages.map((m) => frame(m))),
      headers,
      mutation: "valid",
      allowed: ok,
    };
  if (choice < 7) {
    const { bytes, how } = spoil(rng, messages[0]!);
    // Bytes that do not decode are the caller's fault: INVALID_ARGUMENT, never INTERNAL.
    const allowed = decodes(method.input, bytes) ? ok : [Code.INVALID_ARGUMENT];
    return { method, body: frame(bytes), headers, mutation: `protobuf: ${how}`, allowed };
  }
  return framingCall(rng, method, messages[0]!, headers);
}

/** Calls whose gRPC framing is wrong, with the statuses the gRPC protocol gives them. */
function framingCall(
  rng: Rng,
  method: DescMethod,
  message: Uint8Array,
  headers: Record<string, string>,
): Call {
  const bad = [Code.INVALID_ARGUMENT];
  const unary = method.methodKind === "unary" || method.methodKind === "server_streaming";
  switch (rng.int(6)) {
    case 0: {
      const body = frame(message);
      body.writeUInt32BE(message.length + 1 + rng.int(100), 1);
      // connect-es drops a last message whose 5-byte prefix arrived but whose bytes did not: the
      // call then reads as having no message (UNIMPLEMENTED for unary methods, an empty stream
      // otherwise). A proper status either way, if not the most telling one.
      const allowed = unary
        ? [Code.INVALID_ARGUMENT, Code.UNIMPLEMENTED]
        : [Code.INVALID_ARGUMENT, Code.OK, ...documented[method.name]!];
      return { method, body, headers, mutation: "frame: length longer than the data", allowed };
    }
    case 1:
      return {
        method,
        body: Buffer.concat([frame(message), Buffer.from([0, 0])]),
        headers,
        mutation: "frame: trailing bytes",
        allowed: bad,
      };
    case 2:
      return {
        method,
        body: frame(message, 1),
        headers,
        mutation: "frame: compressed flag without grpc-encoding",
        allowed: bad,
      };
    case 3: {
      const huge = Buffer.from([0, 0xff, 0xff, 0xff, 0xff]);
      // Known, not fixed: connect-node answers a length over readMaxBytes only once the body has
      // ended, so a body larger than HTTP/2's 64 KiB flow-control window stalls until the caller's
      // deadline (seed 348447739; docs/design.md "Limits"). The bytes after the prefix stay within it.
      return {
        method,
        body: Buffer.concat([huge, Buffer.from(message).subarray(0, 60_000)]),
        headers,
        mutation: "frame: 4 GiB length",
        allowed: [Code.RESOURCE_EXHAUSTED, Code.INVALID_ARGUMENT],
      };
    }
    case 4: {
      // gRPC: a unary method with no request, or more than one, is a cardinality violation (UNIMPLEMENTED).
      const body = rng.chance(0.5) ? Buffer.alloc(0) : Buffer.concat([frame(message), frame(message)]);
      const allowed = unary
        ? [Code.UNIMPLEMENTED, Code.INVALID_ARGUMENT]
        : [Code.OK, ...documented[method.name]!];
      return {
        method,
        body,
        headers,
        mutation: `frame: ${body.length === 0 ? "no message" : "two messages"}`,
        allowed,
      };
    }
    default:
      return {
        method,
        body: frame(message),
        headers: { ...headers, "grpc-encoding": "zstd-unknown" },
        mutation: "frame: unknown grpc-encoding",
        allowed: [Code.UNIMPLEMENTED],
      };
  }
}

/** One gRPC length-prefixed message: flag byte, 4-byte big-endian length, the bytes. */
function frame(message: Uint8Array, flag = 0): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

function run(session: http2.ClientHttp2Session, call: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": `/${call.method.parent.typeName}/${call.method.name}`,
      "content-type": "application/grpc",
      te: "trailers",
      ...call.headers,
    });
    const timer = setTimeout(() => {
      stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(new Error(`no status within ${ANSWER_TIMEOUT_MS} ms`));
    }, ANSWER_TIMEOUT_MS);
    const chunks: Buffer[] = [];
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on("response", (h) => {
      headers = h;
    });
    stream.on("trailers", (t) => {
      trailers = t;
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {});
    stream.on("close", () => {
      clearTimeout(timer);
      const status = trailers["grpc-status"] ?? headers["grpc-status"];
      resolve({
        httpStatus: Number(headers[":status"] ?? 0),
        grpcStatus: status === undefined ? undefined : Number(status),
        grpcMessage: decodeURIComponent(String(trailers["grpc-message"] ?? headers["grpc-message"] ?? "")),
        messages: unframe(Buffer.concat(chunks)),
      });
    });
    stream.end(call.body);
  });
}

function unframe(data: Buffer): Buffer[] {
  const messages: Buffer[] = [];
  for (let at = 0; at + 5 <= data.length; ) {
    const length = data.readUInt32BE(at + 1);
    messages.push(data.subarray(at + 5, at + 5 + length));
    at += 5 + length;
  }
  return messages;
}

function judge(call: Call, answer: Answer): string[] {
  if (answer.grpcStatus === undefined) return [`no grpc-status (HTTP ${answer.httpStatus})`];
  const name = names[answer.grpcStatus] ?? String(answer.grpcStatus);
  const problems: string[] = [];
  if (answer.grpcStatus === Code.UNKNOWN || answer.grpcStatus === Code.INTERNAL)
    problems.push(`${name}: ${answer.grpcMessage}`);
  else if (!call.allowed.includes(answer.grpcStatus)) {
    problems.push(
      `${name} (${answer.grpcMessage}), expected ${call.allowed.map((c) => names[c]).join(" or ")}`,
    );
  }
  for (const message of answer.messages) {
    if (!decodes(call.method.output, message))
      problems.push(`a response message that does not decode as ${call.method.output.typeName}`);
  }
  return problems;
}

function failure(index: number, call: Call, problems: string[]): FuzzFailure {
  const headers = Object.entries(call.headers).map(
    ([k, v]) => `${k}: ${k === "authorization" ? "Bearer <internal key>" : v}`,
  );
  const request = [
    `POST /${call.method.parent.typeName}/${call.method.name}`,
    ...headers,
    "",
    `(gRPC body, base64) ${call.body.toString("base64")}`,
  ].join("\n");
  return { surface: "grpc", index, target: call.method.name, mutation: call.mutation, request, problems };
}
