import { FilePart } from "./file-part.js";

/**
 * What a document to upload can be given as:
 * - a `Blob` or `File` (its name is kept),
 * - bytes (`Uint8Array`, `Buffer`, `ArrayBuffer`), sent from where they are on Node,
 * - a path to a file as a `string` or a `file:` `URL` (Node only): read from disk as it is sent,
 *   never held in memory, and read again on a retry,
 * - a stream (`ReadableStream` or any async iterable of bytes, such as a Node `Readable`): on Node
 *   sent as it is read, once (no retry after it started); in browsers read into memory first.
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

/** The file part of a request: a `File`, or on Node a `FilePart` for bytes and streams. */
export type UploadFile = File | FilePart;

/** The server needs a file name on the file part (as `curl -F file=@doc.pdf` sends it). */
const DEFAULT_FILENAME = "upload";

/**
 * Turns an upload into a named file part; a path is opened lazily, with `node:fs` loaded only
 * then. When the body is `streamed` (Node), bytes and streams become a `FilePart` sent from where
 * they are; otherwise they go into a Blob, the only form a browser's FormData takes.
 */
export async function openUpload(
  upload: Uploadable,
  filename: string | undefined,
  streamed: boolean,
): Promise<UploadFile> {
  if (upload instanceof Blob) return named(upload, filename ?? fileName(upload));
  if (typeof upload === "string" || upload instanceof URL) {
    return named(await openFile(upload), filename ?? baseName(upload));
  }
  const name = filename ?? DEFAULT_FILENAME;
  if (upload instanceof ArrayBuffer || ArrayBuffer.isView(upload)) {
    return streamed ? FilePart.fromBytes(name, bytesOf(upload)) : named(new Blob([bytesOf(upload)]), name);
  }
  // A web ReadableStream is async iterable on Node, though the DOM types do not say so yet.
  if (streamed) return FilePart.fromStream(name, upload as AsyncIterable<Uint8Array>);
  return named(await readAll(upload), name);
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
