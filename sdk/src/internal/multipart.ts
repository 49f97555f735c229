import type { AcceptUndefined } from "./accept-undefined.js";
import { FilePart } from "./file-part.js";
import { MultipartParts, streamMultipart } from "./multipart-stream.js";
import type { AttemptInit } from "./request.js";
import { CountedFile, type UploadProgressListener } from "./upload-progress.js";
import { openUpload, type Uploadable, type UploadFile } from "./uploads.js";

/**
 * The fields of a multipart operation as the SDK takes them: the spec's form with `file` as
 * anything `Uploadable`, plus the file name to send (default: the File's or path's name).
 */
export type UploadParams<Form extends { file?: unknown }> = AcceptUndefined<Omit<Form, "file">> &
  (undefined extends Form["file"] ? { file?: Uploadable | undefined } : { file: Uploadable }) & {
    filename?: string | undefined;
  };

/** What openapi-fetch takes for one attempt of a multipart operation. */
export type UploadInit<Form> = AttemptInit & {
  /** The form, for openapi-fetch's types: `bodySerializer` returns the body actually sent. */
  body: Form;
  bodySerializer: () => FormData | ReadableStream<Uint8Array>;
  duplex?: "half";
  redirect?: RequestRedirect;
};

type Fields = Record<string, unknown> & { file?: UploadFile };
/** The fields as sent: on Node the file may be counted on its way out. */
type SentFields = Record<string, unknown> & { file?: UploadFile | CountedFile };

/**
 * The multipart body of one call, sent again on each attempt. On Node it is streamed: files are
 * read as they are sent, so memory stays bounded whatever their size. In browsers it is a
 * FormData, which the browser reads from disk itself.
 */
export class MultipartUpload<Form> {
  private constructor(
    private readonly form: Fields,
    private readonly streamed: boolean,
  ) {}

  /** Opens the upload of `params` (a path on disk, bytes, a stream, ...). */
  static async open<Form extends { file?: unknown }>(
    params: UploadParams<Form>,
  ): Promise<MultipartUpload<Form>> {
    const { file, filename, ...fields } = params as { file?: Uploadable; filename?: string };
    const streamed = streamsBodies();
    const form: Fields = fields;
    if (file !== undefined) form.file = await openUpload(file, filename, streamed);
    return new MultipartUpload(form, streamed);
  }

  /** In browsers, where the progress of a FormData body cannot be seen: the whole file went. */
  sent(onProgress: UploadProgressListener | undefined): void {
    const total = this.form.file?.size;
    if (!this.streamed && total !== undefined) onProgress?.({ loaded: total, total });
  }

  /** Whether another attempt can send the whole body: not once a stream given as the file started. */
  get replayable(): boolean {
    return !(this.form.file instanceof FilePart) || this.form.file.replayable;
  }

  /**
   * The openapi-fetch options of one attempt, with a body of its own. `onProgress` counts the
   * document's bytes as Node sends them, from 0 again on a retry. A browser's fetch tells nothing
   * of an upload's progress: there it hears 0 when the attempt starts and the size once sent.
   */
  attempt(init: AttemptInit, onProgress?: UploadProgressListener): UploadInit<Form> {
    const body = this.form as Form;
    if (!this.streamed) {
      const total = this.form.file?.size;
      return {
        ...init,
        body,
        bodySerializer: () => {
          onProgress?.({ loaded: 0, total });
          return formData(this.form);
        },
      };
    }
    const { file } = this.form;
    const form = onProgress && file ? { ...this.form, file: new CountedFile(file, onProgress) } : this.form;
    const streamed = streamMultipart(streamedParts(form));
    return {
      ...init,
      headers: { ...init.headers, ...streamed.headers },
      body,
      bodySerializer: () => streamed.body,
      // Node's fetch takes a stream body only with `duplex: "half"`.
      duplex: "half",
      // Node's fetch (undici) tees a request body to be able to follow a redirect, and the branch
      // it keeps is never read, so it would hold the whole upload in memory (nodejs/undici#4058).
      // It sends the request itself when it does not follow redirects (the fetch spec's
      // HTTP-network-or-cache fetch, outside a browser window); a stream could not follow one anyway.
      redirect: "error",
    };
  }
}

/**
 * Whether request bodies are streamed: on Node, whose fetch sends a ReadableStream body over
 * HTTP/1.1; not in browsers, which stream a request body only over HTTP/2 and read a FormData's
 * files from disk themselves.
 */
function streamsBodies(): boolean {
  const runtime = globalThis as { process?: { versions?: { node?: string } } };
  return typeof runtime.process?.versions?.node === "string";
}

/**
 * The text fields, which go before the file part: the server hashes the document while it streams
 * in and rejects a field that comes after the file (the spec's multipart rules, as S3's POST
 * upload). Absent fields are not sent.
 */
function textFields(form: SentFields): [string, string][] {
  const fields: [string, string][] = [];
  for (const [name, value] of Object.entries(form)) {
    if (name === "file" || value === undefined || value === null) continue;
    fields.push([name, typeof value === "object" ? JSON.stringify(value) : String(value)]);
  }
  return fields;
}

/** Node's body: the parts form-data-encoder streams. */
function streamedParts(form: SentFields): MultipartParts {
  const parts = new MultipartParts();
  for (const [name, value] of textFields(form)) parts.append(name, value);
  if (form.file) parts.append("file", form.file);
  return parts;
}

/** The browser's body: a FormData, whose file is always a `File` there (see `openUpload`). */
function formData(form: Fields): FormData {
  const data = new FormData();
  for (const [name, value] of textFields(form)) data.append(name, value);
  if (form.file instanceof File) data.append("file", form.file, form.file.name);
  return data;
}
