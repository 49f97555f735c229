/**
 * What a document to upload can be given as:
 * - a `Blob` or `File` (its name is kept),
 * - bytes (`Uint8Array`, `Buffer`, `ArrayBuffer`),
 * - a path to a file as a `string` or a `file:` `URL` (Node only): read from disk as it is sent,
 *   never held in memory, and read again on a retry,
 * - a stream (`ReadableStream` or any async iterable of bytes, such as a Node `Readable`): read
 *   into memory first, because a retry must be able to send it again.
 *
 * A string is always a path, never the content: wrap text in a `Blob` to upload it.
 */
export type Uploadable =
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | string
  | URL
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

/** The server needs a file name on the file part (as `curl -F file=@doc.pdf` sends it). */
const DEFAULT_FILENAME = "upload";

/** Turns an upload into a named `File`; a path is opened lazily, with `node:fs` loaded only then. */
export async function toFile(upload: Uploadable, filename?: string): Promise<File> {
  if (upload instanceof Blob) return named(upload, filename ?? fileName(upload));
  if (typeof upload === "string" || upload instanceof URL) {
    return named(await openFile(upload), filename ?? baseName(upload));
  }
  if (upload instanceof ArrayBuffer || ArrayBuffer.isView(upload)) {
    return named(new Blob([bytesOf(upload)]), filename);
  }
  return named(await readAll(upload), filename);
}

function named(blob: Blob, filename = DEFAULT_FILENAME): File {
  if (blob instanceof File && blob.name === filename) return blob;
  // A File made from a Blob refers to its data; nothing is copied (a file on disk stays on disk).
  return new File([blob], filename, { type: blob.type });
}

function fileName(blob: Blob): string | undefined {
  return blob instanceof File && blob.name ? blob.name : undefined;
}

function baseName(path: string | URL): string {
  const text = path instanceof URL ? decodeURIComponent(path.pathname) : path;
  return text.split(/[\\/]/).pop() || DEFAULT_FILENAME;
}

function bytesOf(data: ArrayBuffer | ArrayBufferView): Uint8Array<ArrayBuffer> {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
}

interface NodeFs {
  openAsBlob(path: string | URL): Promise<Blob>;
}

async function openFile(path: string | URL): Promise<Blob> {
  // Through a variable, so that browser bundlers do not try to resolve node:fs.
  const specifier = "node:fs";
  const fs = (await import(/* @vite-ignore */ specifier)) as NodeFs;
  return fs.openAsBlob(path);
}

async function readAll(stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Blob> {
  if (stream instanceof ReadableStream) return new Response(stream).blob();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for await (const chunk of stream) chunks.push(bytesOf(chunk));
  return new Blob(chunks);
}
