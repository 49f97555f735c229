import type { Transform } from "node:stream";
import zlib from "node:zlib";
import { ServiceError } from "../../errors.js";

// The codings express.json (body-parser) inflates, so a large body is read as any other.
const decoders: Record<string, () => Transform> = {
  gzip: () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
  ...("createZstdDecompress" in zlib
    ? { zstd: () => (zlib as unknown as { createZstdDecompress(): Transform }).createZstdDecompress() }
    : {}),
};

/** The request's Content-Encoding, lower case; `identity` when it has none. */
export function contentEncoding(header: string | undefined): string {
  return (header ?? "identity").trim().toLowerCase();
}

/** A stream decoding `encoding` (undefined for `identity`); an unknown coding is a 400. */
export function decoderFor(encoding: string): Transform | undefined {
  if (encoding === "identity") return undefined;
  const decoder = decoders[encoding];
  if (!decoder) {
    throw new ServiceError(
      "invalid_argument",
      `unsupported content encoding "${encoding}" (identity, ${Object.keys(decoders).join(", ")})`,
      "bad_request",
    );
  }
  return decoder();
}

/** A body whose bytes are not what its Content-Encoding says: the client's fault, a 400. */
export function undecodable(encoding: string, cause: unknown): ServiceError {
  const why = cause instanceof Error ? `: ${cause.message}` : "";
  return new ServiceError(
    "invalid_argument",
    `the body is not valid ${encoding} data, as its Content-Encoding says${why}`,
    "bad_request",
  );
}

interface BodyParserError {
  type?: string;
  status?: number;
  code?: unknown;
  message?: string;
}

/**
 * body-parser's own errors carry a `type`; what its decompression stream failed with (zlib's
 * `Z_DATA_ERROR`, brotli's `ERR_…`) reaches the error handler bare, as a 400 whose message is
 * zlib's alone and without a code (issue #35 item 7). Those, and an unknown coding, become the
 * 400 `bad_request` a large body's reader answers.
 */
export function asDecodingError(encodingHeader: string | undefined, err: unknown): unknown {
  const encoding = contentEncoding(encodingHeader);
  if (encoding === "identity" || typeof err !== "object" || err === null) return err;
  const e = err as BodyParserError;
  if (e.type === "encoding.unsupported" && e.status === 415) {
    try {
      decoderFor(encoding);
    } catch (unsupported) {
      return unsupported;
    }
  }
  const fromZlib = e.type === undefined && typeof e.code === "string" && /^(Z_|ERR_)/.test(e.code);
  return fromZlib ? undecodable(encoding, err) : err;
}
