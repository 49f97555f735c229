import { PassThrough, type Readable } from "node:stream";
import { finished } from "node:stream/promises";
import busboy from "busboy";
import type { Request } from "express";
import type { Config } from "../../config.js";
import { invalid, ServiceError } from "../../errors.js";
import { searchBoundaryNatively } from "./boundary-search.js";
import { type FieldSource, type FormSchema, formSchema } from "./form-fields.js";
import { type SpoolPlace, spoolPlace, UploadSpool } from "./upload-spool.js";

/** The part that carries the document; every other part is a text field. */
const FILE_PART = "file";

export interface UploadLimits {
  /** Largest file part accepted; one byte more fails the file stream with a 413. */
  maxBytes: number;
  /** Text fields per form (MAX_FORM_FIELDS); one more is a 400. */
  maxFields: number;
  /** Bytes per text field (MAX_FORM_FIELD_BYTES; a `stamp_json` is as large as a JSON body); more is a 413. */
  maxFieldBytes: number;
  /** Whether a request without a file part is a validation failure. */
  fileRequired: boolean;
  /** Where an upload is spooled when a field after it may change how it is read. */
  spool: SpoolPlace;
}

/** The configured limits of an upload. */
export function uploadLimits(
  config: Pick<
    Config,
    | "MAX_UPLOAD_BYTES"
    | "MAX_FORM_FIELDS"
    | "MAX_FORM_FIELD_BYTES"
    | "UPLOAD_SPOOL_DIR"
    | "UPLOAD_SPOOL_MIN_FREE_BYTES"
    | "STORE_RETRY_AFTER_SECONDS"
    | "DATA_DIR"
  >,
  fileRequired: boolean,
): UploadLimits {
  return {
    maxBytes: config.MAX_UPLOAD_BYTES,
    maxFields: config.MAX_FORM_FIELDS,
    maxFieldBytes: config.MAX_FORM_FIELD_BYTES,
    fileRequired,
    spool: spoolPlace(config),
  };
}

/** What the client said about its file. */
export interface UploadedFileInfo {
  /** The part's file name; empty when the client sent none. */
  filename: string;
  mimeType: string;
}

/** Text fields of a form merged with their query-parameter twins (the query wins). */
export type FormFields = Record<string, string>;

/**
 * What one operation does with a multipart upload, in two phases, so its fields may come in any
 * order without the file being held in memory: `read` turns the file into a digest and has no
 * side effects; `finish` acts (stores a stamp, answers) once the whole form was read and found
 * valid. `S` is what reading depends on (an algorithm, a method), `D` the digest.
 */
export interface UploadOperation<S, D, T> {
  /**
   * Runs before any byte of the file is read (at the end of a form without one), with the fields
   * known so far: cheap refusals go here, such as an unknown stamp or another account's identity.
   */
  start?(known: FormFields): Promise<void>;
  /**
   * How to read the file when it starts, from the fields known so far: `certain` when no later
   * field can change what is needed, or when `settings` serve every outcome (all algorithms at
   * once); otherwise the file is also spooled, in case the final settings need a second read.
   */
  plan(known: FormFields): { settings: S; certain: boolean };
  /** The settings the complete form asks for. */
  settings(fields: FormFields): S;
  /** Reads the whole file; no side effects. */
  read(file: Readable, settings: S): Promise<D>;
  /** The digest `final` needs from one read with `readWith`; null when the file must be read again. */
  reuse(digest: D, readWith: S, final: S): D | null;
  /** Acts on the complete, valid form; `upload` is null when no file part was sent. */
  finish(fields: FormFields, upload: { file: UploadedFileInfo; digest: D } | null): Promise<T>;
  /**
   * Text fields that may also come as file parts (`curl -F stamp_json=@stamp.json`, the file
   * picker Swagger UI draws for a JSON field): read whole, within the text field limit, as UTF-8.
   */
  textFiles?: readonly string[];
}

/**
 * Streams a multipart upload without buffering it; text fields and the file part may come in any
 * order. When the file part starts, the fields so far (merged with their query-parameter twins,
 * the query winning) are checked against the operation's form schema in the spec, except for
 * required fields that may still come, and `op.start` runs; the file is then read with
 * `op.plan`'s settings as it streams. When the settings could still change, the bytes are also
 * kept in an `UploadSpool` (server/rest/uploads/upload-spool.ts) and read again only if the complete form
 * asks for other settings. `op.finish` runs once the whole form was read and fully checked, so
 * it only ever sees a valid request. The spool is removed when the request settles, whatever way.
 */
export function receiveUpload<S, D, T>(
  req: Request,
  opts: UploadLimits,
  op: UploadOperation<S, D, T>,
): Promise<T> {
  const form = formOf(req);
  const query = queryTwins(req, form);
  if (!req.is("multipart/form-data")) return withoutBody(form, query, opts, op);
  return new Promise<T>((resolve, reject) => {
    try {
      new UploadReceiver(req, opts, form, query, op, resolve, reject);
    } catch (err) {
      // busboy refuses a Content-Type it cannot read (no boundary) before reading anything.
      reject(malformed((err as Error).message));
    }
  });
}

/** A file being read: the digest under way, the settings it assumed, its spool if any. */
interface Reading<S, D> {
  file: UploadedFileInfo;
  readWith: S;
  digest: Promise<D>;
  spool: UploadSpool | null;
}

/** Follows one multipart body through busboy; settles the promise exactly once. */
class UploadReceiver<S, D, T> {
  // No prototype: a field named "__proto__" must be a field like any other (and fail the schema).
  private readonly fields: Record<string, string> = Object.create(null);
  /** Text fields being read from file parts (`UploadOperation.textFiles`). */
  private readonly textReads: Promise<void>[] = [];
  private readonly parser: busboy.Busboy;
  private source: Readable | null = null;
  private body: PassThrough | null = null;
  private reading: Promise<Reading<S, D>> | null = null;
  private spool: UploadSpool | null = null;
  private settled = false;

  constructor(
    private readonly req: Request,
    private readonly opts: UploadLimits,
    private readonly form: FormSchema | null,
    private readonly query: Record<string, string>,
    private readonly op: UploadOperation<S, D, T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.parser = busboy({
      headers: req.headers,
      defParamCharset: "utf8",
      // fileSize + 1: busboy reports reaching its limit, and a file of exactly maxBytes is fine.
      limits: {
        fileSize: opts.maxBytes + 1,
        files: 1 + (op.textFiles?.length ?? 0),
        fields: opts.maxFields,
        fieldSize: opts.maxFieldBytes,
        parts: opts.maxFields + 1,
      },
    });
    searchBoundaryNatively(this.parser);
    this.parser.on("field", (name, value, info) => this.onField(name, value, info.valueTruncated));
    this.parser.on("file", (name, stream, info) => this.onFile(name, stream, info));
    this.parser.on("finish", () => this.onFinish());
    this.parser.on("error", (err: Error) => this.fail(malformed(err.message)));
    for (const event of ["partsLimit", "filesLimit", "fieldsLimit"] as const) {
      this.parser.on(event, () => this.fail(tooManyParts(opts.maxFields)));
    }
    req.on("aborted", () => this.fail(malformed("the client aborted the upload")));
    req.on("error", (err) => this.fail(malformed(err.message)));
    req.pipe(this.parser);
  }

  private onField(name: string, value: string, truncated: boolean): void {
    const problem = this.fieldProblem(name, truncated);
    if (problem) this.fail(problem);
    else this.fields[name] = value;
  }

  /** A text field sent as a file part, taken as the field once read (busboy's next part waits for it). */
  private readTextFile(name: string, stream: Readable): void {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= this.opts.maxFieldBytes) chunks.push(chunk);
    });
    const read = new Promise<void>((resolve) => {
      stream.on("error", (err: Error) => {
        this.fail(malformed(err.message));
        resolve();
      });
      stream.on("end", () => {
        resolve();
        try {
          const text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
          this.onField(name, text, size > this.opts.maxFieldBytes);
        } catch {
          this.fail(malformed(`the file part "${name}" is not UTF-8 text`));
        }
      });
    });
    this.textReads.push(read);
  }

  private fieldProblem(name: string, truncated: boolean): ServiceError | null {
    if (truncated) return tooLarge(`field "${name}" exceeds ${this.opts.maxFieldBytes} bytes`);
    if (name === FILE_PART) return malformed(`"${FILE_PART}" must be a file part with a filename`);
    if (Object.hasOwn(this.fields, name)) return malformed(`field "${name}" is sent twice`);
    return null;
  }

  private onFile(name: string, stream: Readable, info: busboy.FileInfo): void {
    if (this.op.textFiles?.includes(name)) {
      this.readTextFile(name, stream);
      return;
    }
    if (name !== FILE_PART) {
      stream.resume();
      this.fail(malformed(`unexpected file part "${name}"; the document goes in "${FILE_PART}"`));
      return;
    }
    // busboy's files limit counts the text fields allowed as file parts too.
    if (this.reading) {
      stream.resume();
      this.fail(malformed(`the file part "${FILE_PART}" is sent twice`));
      return;
    }
    const known = this.checkedFields(true, true);
    if (!known) {
      stream.resume();
      return;
    }
    this.source = stream;
    stream.on("error", (err: Error) => this.fail(malformed(err.message)));
    stream.on("limit", () => this.fail(tooLarge(`upload exceeds the limit of ${this.opts.maxBytes} bytes`)));
    const file = { filename: info.filename ?? "", mimeType: info.mimeType };
    // Until start() has answered, busboy holds the file (and so the rest of the body) back.
    this.reading = this.startReading(known, stream, file);
    this.reading.catch((err) => this.fail(err));
  }

  private async startReading(
    known: FormFields,
    stream: Readable,
    file: UploadedFileInfo,
  ): Promise<Reading<S, D>> {
    await this.op.start?.(known);
    if (this.settled) throw new Error("upload already settled");
    const { settings, certain } = this.op.plan(known);
    const body = new PassThrough();
    this.body = body;
    // The reader learns of a failure from its own read; this listener only keeps a stream its
    // reader has left from crashing the process (fail() settles the request either way).
    body.on("error", () => {});
    stream.pipe(body);
    const spool = certain ? null : new UploadSpool(this.opts.spool);
    if (spool) {
      this.spool = spool;
      spool.on("error", (err) => this.fail(err));
      // Both readers get every chunk; pipe() pauses the file for whichever is slower.
      stream.pipe(spool);
    }
    const digest = this.op.read(body, settings);
    digest.catch((err) => this.fail(err));
    return { file, readWith: settings, digest, spool };
  }

  private onFinish(): void {
    // A text field sent as a file part may still be ending when the parser is done.
    void Promise.all(this.textReads).then(() => this.onFormRead());
  }

  private onFormRead(): void {
    if (this.settled) return;
    if (!this.reading && this.opts.fileRequired) {
      this.fail(invalid("request validation failed", [missingFile]));
      return;
    }
    const fields = this.checkedFields(this.reading !== null, false);
    if (fields)
      this.complete(fields).then(
        (value) => this.succeed(value),
        (err) => this.fail(err),
      );
  }

  private async complete(fields: FormFields): Promise<T> {
    if (!this.reading) {
      await this.op.start?.(fields);
      return this.op.finish(fields, null);
    }
    const { file, readWith, digest, spool } = await this.reading;
    const final = this.op.settings(fields);
    const reused = this.op.reuse(await digest, readWith, final);
    if (reused !== null) return this.op.finish(fields, { file, digest: reused });
    if (!spool) throw new Error("an upload read without a spool cannot be read again");
    if (!spool.writableFinished) await finished(spool);
    return this.op.finish(fields, { file, digest: await this.op.read(spool.reader(), final) });
  }

  private checkedFields(hasFile: boolean, partial: boolean): FormFields | null {
    try {
      return checkFields(this.form, { ...this.fields, ...this.query }, this.query, hasFile, partial);
    } catch (err) {
      this.fail(err);
      return null;
    }
  }

  private succeed(value: T): void {
    if (this.settled) return;
    this.settled = true;
    this.removeSpool().then(() => this.resolve(value));
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.req.unpipe(this.parser);
    this.source?.destroy();
    this.body?.destroy(err as Error);
    // The rest of a rejected upload is not worth reading: answer, then drop the connection.
    if (!this.req.res?.headersSent) this.req.res?.setHeader("Connection", "close");
    this.req.resume();
    this.removeSpool().then(() => this.reject(err));
  }

  /** Deletes the spool before the answer goes out, so no spool file outlives its request. */
  private async removeSpool(): Promise<void> {
    await this.spool?.remove().catch(() => {});
  }
}

async function withoutBody<S, D, T>(
  form: FormSchema | null,
  query: Record<string, string>,
  opts: UploadLimits,
  op: UploadOperation<S, D, T>,
): Promise<T> {
  if (opts.fileRequired) throw invalid("request validation failed", [missingFile]);
  const fields = checkFields(form, query, query, false, false);
  await op.start?.(fields);
  return op.finish(fields, null);
}

function checkFields(
  form: FormSchema | null,
  values: Record<string, string>,
  query: Record<string, string>,
  hasFile: boolean,
  partial: boolean,
): FormFields {
  const source = (name: string): FieldSource => (Object.hasOwn(query, name) ? "query" : "body");
  form?.check(values, hasFile, source, partial);
  return values;
}

function formOf(req: Request): FormSchema | null {
  return req.operation ? formSchema(req.operation.route.operationId) : null;
}

/**
 * The query parameters that are twins of form fields, as the client wrote them. The request
 * validator has already checked them against their own schemas.
 */
function queryTwins(req: Request, form: FormSchema | null): Record<string, string> {
  const params = new URL(req.originalUrl, "http://localhost").searchParams;
  const twins: Record<string, string> = {};
  for (const name of form?.fields ?? []) {
    const value = params.get(name);
    if (value !== null) twins[name] = value;
  }
  return twins;
}

const missingFile = { path: `/body/${FILE_PART}`, message: `must have required property '${FILE_PART}'` };

const malformed = (message: string) => new ServiceError("invalid_argument", message, "invalid_multipart");
const tooManyParts = (maxFields: number) =>
  malformed(`too many parts: at most ${maxFields} text fields and one file part "${FILE_PART}"`);
const tooLarge = (message: string) => new ServiceError("payload_too_large", message, "payload_too_large");
