/** One part of a hand-built multipart body; `filename` makes it a file part. */
export interface Part {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  contentType?: string;
}

const BOUNDARY = "stampd-test-boundary-7MA4YWxkTrZu0gW";

/**
 * A multipart/form-data body with its parts in exactly the given order (FormData does not let a
 * test put a field after the file, repeat a field or cut the body short).
 */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? "" : `; filename="${part.filename}"`;
    const type = part.contentType ?? (part.filename === undefined ? undefined : "application/octet-stream");
    chunks.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n` +
          (type ? `Content-Type: ${type}\r\n` : "") +
          "\r\n",
      ),
      Buffer.from(part.value),
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}

export const filePart = (value: string | Uint8Array, filename = "doc.txt"): Part => ({
  name: "file",
  value,
  filename,
});

/** POSTs hand-built parts; `truncate` cuts the body to that many bytes (a malformed upload). */
export function postParts(
  url: string,
  parts: Part[],
  init: { headers?: Record<string, string>; truncate?: number } = {},
): Promise<Response> {
  const { body, contentType } = multipart(parts);
  return fetch(url, {
    method: "POST",
    headers: { "content-type": contentType, ...init.headers },
    body: new Uint8Array(init.truncate === undefined ? body : body.subarray(0, init.truncate)),
  });
}
