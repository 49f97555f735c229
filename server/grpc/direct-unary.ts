import type http2 from "node:http2";
import {
  create,
  type DescMessage,
  type DescMethod,
  fromBinary,
  type Message,
  toBinary,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { type Compression, compressionNegotiate } from "@connectrpc/connect/protocol";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { DirectCall } from "./direct-call.js";
import { failingBody, silentCall } from "./idle-requests.js";

/** A unary method of an application service, as the service implements it. */
export interface UnaryImpl {
  method: DescMethod;
  impl: (request: Message, context: HandlerContext) => unknown;
}

export interface DirectUnaryOptions {
  /** The same interceptors, in the same order, as Connect runs around every other call. */
  interceptors: Interceptor[];
  readMaxBytes: number;
  acceptCompression: Compression[];
  shutdownSignal: AbortSignal;
  /** GRPC_CALL_IDLE_TIMEOUT_MS: a call whose body does not come within it is handed over failing. */
  idleMs: number;
}

/** The body read so far, then the rest of the request: what Connect reads when it takes a call over. */
export type TakeOver = (body: AsyncIterable<Uint8Array>) => void;

/** The gRPC envelope: a flags byte and a big-endian length before each message (PROTOCOL-HTTP2.md). */
const ENVELOPE = 5;
/** Responses this large are compressed when the client accepts compression, as Connect does. */
const COMPRESS_MIN_BYTES = 1024;
const binaryContentType = /^application\/grpc(\+proto)?$/i;

/**
 * Whether a call can be served directly: the binary gRPC protocol (what gRPC clients speak), an
 * uncompressed request and no deadline. gRPC-Web, Connect, JSON, compressed requests and deadlines
 * go through Connect, whose generic pipeline handles them.
 */
export function servesDirectly(req: http2.Http2ServerRequest): boolean {
  const h = req.headers;
  const encoding = h["grpc-encoding"];
  return (
    req.method === "POST" &&
    binaryContentType.test(h["content-type"] ?? "") &&
    h["grpc-timeout"] === undefined &&
    (encoding === undefined || encoding === "identity")
  );
}

/**
 * A unary gRPC call served without Connect's streaming pipeline: Connect handles every call as
 * streams of envelopes through chains of async generators (about 60 KiB allocated and two aborted
 * signals per CreateStamp), where a unary call is one message in, one out. The answer is the one
 * Connect gives, byte for byte: the same interceptors around the method, the same headers, message
 * and trailers, the same status of a thrown error. A body that is not exactly one uncompressed
 * message that parses (a caller's fault, or one too large) is handed to Connect with the bytes read
 * so far (`takeOver`), so its refusals stay Connect's own.
 */
export function serveDirectly(
  unary: UnaryImpl,
  options: DirectUnaryOptions,
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
  values: ContextValues,
  takeOver: TakeOver,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    silence.refresh();
    chunks.push(chunk);
    size += chunk.length;
    if (size > ENVELOPE + options.readMaxBytes) {
      stopReading();
      req.pause();
      takeOver(replay(chunks, req));
    }
  };
  const onEnd = () => {
    stopReading();
    const input = parseSingle(unary.method.input, chunks, size);
    if (input === undefined) takeOver(replay(chunks, req));
    else void respond(unary, options, input, req, res, values);
  };
  const stopReading = () => {
    clearTimeout(silence);
    req.off("data", onData);
    req.off("end", onEnd);
  };
  // A client that sends its headers and then nothing: Connect answers the silence (idle-requests.ts).
  const silence = setTimeout(() => {
    stopReading();
    takeOver(failingBody(silentCall(options.idleMs)));
  }, options.idleMs);
  req.on("data", onData);
  req.on("end", onEnd);
}

/** The request message, when the body is one uncompressed envelope that parses; else undefined. */
function parseSingle(schema: DescMessage, chunks: Buffer[], size: number): Message | undefined {
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  if (size < ENVELOPE || body[0] !== 0 || body.readUInt32BE(1) !== size - ENVELOPE) return undefined;
  try {
    return fromBinary(schema, body.subarray(ENVELOPE));
  } catch {
    return undefined;
  }
}

async function* replay(chunks: Buffer[], req: http2.Http2ServerRequest): AsyncIterable<Uint8Array> {
  yield* chunks;
  yield* req;
}

async function respond(
  unary: UnaryImpl,
  options: DirectUnaryOptions,
  message: Message,
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
  values: ContextValues,
): Promise<void> {
  const call = new DirectCall(unary.method, req, values, options.shutdownSignal);
  const compression = compressionNegotiate(
    options.acceptCompression,
    null,
    call.requestHeader.get("grpc-accept-encoding"),
    "grpc-accept-encoding",
  ).response;
  if (compression) call.responseHeader.set("grpc-encoding", compression.name);
  let body: Uint8Array | undefined;
  try {
    const output = await invoke(unary, options.interceptors, call, message);
    body = await envelope(serialize(unary.method.output, output), compression);
    call.end();
  } catch (err) {
    call.end(err);
    setTrailerStatus(call.responseTrailer, err instanceof ConnectError ? err : internalError(err));
  }
  if (res.stream.destroyed) return;
  res.writeHead(200, nodeHeaders(call.responseHeader));
  if (body) res.write(body);
  res.addTrailers(nodeHeaders(call.responseTrailer));
  res.end();
}

/** The method inside the interceptors, as Connect's invokeUnaryImplementation runs it. */
async function invoke(unary: UnaryImpl, interceptors: Interceptor[], call: DirectCall, message: Message) {
  const { method } = unary;
  const inner = async (req: UnaryRequest): Promise<UnaryResponse> => ({
    stream: false,
    message: create(method.output, (await unary.impl(req.message, call.context(req))) as never),
    method: method as UnaryResponse["method"],
    service: method.parent,
    header: call.responseHeader,
    trailer: call.responseTrailer,
  });
  let next = inner as (req: UnaryRequest) => Promise<UnaryResponse>;
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next as never) as typeof next;
  const res = await next(call.request(message));
  copyHeaders(res.header, call.responseHeader);
  copyHeaders(res.trailer, call.responseTrailer);
  return res.message;
}

/** The response's bytes; a message that does not serialize fails the call as Connect fails it. */
function serialize(schema: DescMessage, message: Message): Uint8Array {
  try {
    return toBinary(schema, message);
  } catch (err) {
    throw new ConnectError(
      `serialize binary: ${err instanceof Error ? err.message : String(err)}`,
      Code.Internal,
    );
  }
}

const internalError = (cause: unknown) =>
  new ConnectError("internal error", Code.Internal, undefined, undefined, cause);

/** One enveloped message, compressed when the client accepts it and it is large enough. */
async function envelope(bytes: Uint8Array, compression: Compression | null): Promise<Buffer> {
  const compress = compression !== null && bytes.byteLength >= COMPRESS_MIN_BYTES;
  const data = compress ? await compression.compress(bytes) : bytes;
  const out = Buffer.allocUnsafe(ENVELOPE + data.byteLength);
  out[0] = compress ? 1 : 0;
  out.writeUInt32BE(data.byteLength, 1);
  out.set(data, ENVELOPE);
  return out;
}

/** What an interceptor's answer says replaces what the call had (Connect's copyHeaders). */
function copyHeaders(from: Headers, to: Headers): void {
  if (from === to) return;
  const keys: string[] = [];
  to.forEach((_, key) => {
    keys.push(key);
  });
  for (const key of keys) to.delete(key);
  from.forEach((value, key) => {
    to.set(key, value);
  });
}

/** Headers as Node writes them (Connect's webHeaderToNodeHeaders: repeated names become arrays). */
function nodeHeaders(headers: Headers): http2.OutgoingHttpHeaders {
  const out: Record<string, string | string[]> = Object.create(null);
  headers.forEach((value, key) => {
    const had = out[key];
    out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  });
  return out;
}
