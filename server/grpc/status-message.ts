import type http2 from "node:http2";

/**
 * A status message in gRPC's Status-Message encoding (PROTOCOL-HTTP2.md): UTF-8, then every byte
 * percent-encoded except space and visible ASCII other than `%`.
 */
export function encodeStatusMessage(message: string): string {
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    const plain = byte >= 0x20 && byte <= 0x7e && byte !== 0x25;
    out += plain ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * connect-es writes `grpc-message` with encodeURIComponent, which also encodes `:`, `,`, `/`, `;`
 * and `=`; @grpc/grpc-js decodes it with decodeURI, which leaves exactly those encoded, so its
 * users would read `content_hash%3A …`. Rewriting the trailer in the spec's minimal form reads
 * right in both and in every other implementation.
 */
export function withPlainStatusMessages(res: http2.Http2ServerResponse): void {
  const addTrailers = res.addTrailers.bind(res);
  res.addTrailers = (trailers) => {
    const message = trailers["grpc-message"];
    if (typeof message !== "string") return addTrailers(trailers);
    addTrailers({ ...trailers, "grpc-message": encodeStatusMessage(decodeURIComponent(message)) });
  };
}
