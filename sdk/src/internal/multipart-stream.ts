import {
  type FileLike,
  FormDataEncoder,
  type FormDataEntryValue,
  type FormDataLike,
} from "form-data-encoder";

/** A multipart body that Node's fetch sends as it is read, with the headers that describe it. */
export interface StreamedMultipart {
  body: ReadableStream<Uint8Array>;
  /** `Content-Type` with the boundary, and `Content-Length` when every part's size is known. */
  headers: Record<string, string>;
}

/**
 * The parts in order, as form-data-encoder reads a FormData: the spec's FormData takes no file
 * but a Blob, while a part here may be a stream of unknown length (a `FilePart`).
 */
export class MultipartParts implements FormDataLike {
  readonly [Symbol.toStringTag] = "FormData";
  private readonly parts: [string, FormDataEntryValue][] = [];

  append(name: string, value: string | FileLike): void {
    this.parts.push([name, value]);
  }

  getAll(name: string): FormDataEntryValue[] {
    return this.parts.filter(([partName]) => partName === name).map(([, value]) => value);
  }

  entries(): IterableIterator<[string, FormDataEntryValue]> {
    return this.parts[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, FormDataEntryValue]> {
    return this.entries();
  }
}

/** `ReadableStream.from` (Node 20.6+), which the DOM types the SDK compiles with do not have yet. */
interface ReadableStreamFrom {
  from(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array>;
}

/**
 * Encodes the parts with form-data-encoder into a stream that reads each file only as the
 * request sends it (so memory stays bounded whatever the file's size).
 */
export function streamMultipart(parts: MultipartParts): StreamedMultipart {
  const encoder = new FormDataEncoder(parts);
  const headers: Record<string, string> = { "Content-Type": encoder.contentType };
  if (encoder.contentLength !== undefined) headers["Content-Length"] = encoder.contentLength;
  const body = (ReadableStream as unknown as ReadableStreamFrom).from(encoder.encode());
  return { body, headers };
}
