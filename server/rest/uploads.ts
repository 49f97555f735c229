import { PassThrough, type Readable } from "node:stream";
import busboy from "busboy";
import type { Request } from "express";
import type { Config } from "../config.js";
import { invalid, ServiceError } from "../errors.js";
import { type FieldSource, type FormSchema, formSchema } from "./form-fields.js";
import type { OperationId } from "./spec.js";

/** The part that carries the document; every other part is a text field. */
const FILE_PART = "file";

export interface UploadOptions {
  /** Largest file part accepted; one byte more fails the file stream with a 413. */
  maxBytes: number;
  /** Text fields per form (MAX_FORM_FIELDS); one more is a 400. */
  maxFields: number;
  /** Bytes per text field (MAX_FORM_FIELD_BYTES; a `stamp_json` is as large as a JSON body); more is a 413. */
  maxFieldBytes: number;
  /** Whether a request without a file part is a validation failure. */
  fileRequired: boolean;
}

/** The configured limits of an upload. */
export function uploadLimits(
  config: Pick<Config, "MAX_UPLOAD_BYTES" | "MAX_FORM_FIELDS" | "MAX_FORM_FIELD_BYTES">,
  fileRequired: boolean,
): UploadOptions {
  return {
    maxBytes: config.MAX_UPLOAD_BYTES,
    maxFields: config.MAX_FORM_FIELDS,
    maxFieldBytes: config.MAX_FORM_FIELD_BYTES,
    fileRequired,
  };
}

/** The uploaded document as it streams in, with what the client said about it. */
export interface UploadFile extends Readable {
  /** The part's file name; empty when the client sent none. */
  filename: string;
  mimeType: string;
}

/**
 * Streams a multipart upload without buffering it. Text fields must precede the file part (the
 * spec's multipart rules, as S3's POST upload): `consume` is called when the file part starts
 * with the text fields so far, merged with their query-parameter twins (the query wins), all
 * validated against the operation's form schema in the spec. Without a file part it is called at
 * the end with `file` null. The file stream fails with a 413 `ServiceError` past `maxBytes`, and it
 * reaches its end only once the whole form was read and found well-formed, so whatever `consume`
 * does after reading the file to the end belongs to a valid request.
 */
export function receiveUpload<T>(
  req: Request,
  opts: UploadOptions,
  consume: (fields: Record<string, string>, file: UploadFile | null) => Promise<T>,
): Promise<T> {
  const form = formOf(req);
  const query = queryTwins(req, form);
  if (!req.is("multipart/form-data")) return withoutBody(form, query, opts, consume);
  return new Promise<T>((resolve, reject) => {
    try {
      new UploadReceiver(req, opts, form, query, consume, resolve, reject);
    } catch (err) {
      // busboy refuses a Content-Type it cannot read (no boundary) before reading anything.
      reject(malformed((err as Error).message));
    }
  });
}

/** Follows one multipart body through busboy; settles the promise exactly once. */
class UploadReceiver<T> {
  // No prototype: a field named "__proto__" must be a field like any other (and fail the schema).
  private readonly fields: Record<string, string> = Object.create(null);
  private readonly parser: busboy.Busboy;
  private file: (PassThrough & UploadFile) | null = null;
  private result: Promise<T> | null = null;
  private settled = false;

  constructor(
    private readonly req: Request,
    private readonly opts: UploadOptions,
    private readonly form: FormSchema | null,
    private readonly query: Record<string, string>,
    private readonly consume: (fields: Record<string, string>, file: UploadFile | null) => Promise<T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.parser = busboy({
      headers: req.headers,
      defParamCharset: "utf8",
      // fileSize + 1: busboy reports reaching its limit, and a file of exactly maxBytes is fine.
      limits: {
        fileSize: opts.maxBytes + 1,
        files: 1,
        fields: opts.maxFields,
        fieldSize: opts.maxFieldBytes,
        parts: opts.maxFields + 1,
      },
    });
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

  private fieldProblem(name: string, truncated: boolean): ServiceError | null {
    if (this.file) return malformed(`field "${name}" comes after the file part; send text fields first`);
    if (truncated) return tooLarge(`field "${name}" exceeds ${this.opts.maxFieldBytes} bytes`);
    if (name === FILE_PART) return malformed(`"${FILE_PART}" must be a file part with a filename`);
    if (Object.hasOwn(this.fields, name)) return malformed(`field "${name}" is sent twice`);
    return null;
  }

  private onFile(name: string, stream: Readable, info: busboy.FileInfo): void {
    if (name !== FILE_PART) {
      stream.resume();
      this.fail(malformed(`unexpected file part "${name}"; the document goes in "${FILE_PART}"`));
      return;
    }
    const fields = this.checkedFields(true);
    if (!fields) {
      stream.resume();
      return;
    }
    const file = Object.assign(new PassThrough(), { filename: info.filename ?? "", mimeType: info.mimeType });
    this.file = file;
    // The consumer learns of a failure from its own read; this listener only keeps an unread
    // stream's error from crashing the process (fail() settles the request either way).
    file.on("error", () => {});
    stream.on("error", (err: Error) => this.fail(malformed(err.message)));
    stream.on("limit", () => this.fail(tooLarge(`upload exceeds the limit of ${this.opts.maxBytes} bytes`)));
    // No end: the consumer sees the end of the file only after the whole form parsed (onFinish).
    stream.pipe(file, { end: false });
    this.run(fields, file);
  }

  private onFinish(): void {
    if (this.settled) return;
    if (this.file) this.file.end();
    else if (this.opts.fileRequired) this.fail(invalid("request validation failed", [missingFile]));
    else {
      const fields = this.checkedFields(false);
      if (fields) this.run(fields, null);
    }
  }

  private checkedFields(hasFile: boolean): Record<string, string> | null {
    try {
      return checkFields(this.form, { ...this.fields, ...this.query }, this.query, hasFile);
    } catch (err) {
      this.fail(err);
      return null;
    }
  }

  private run(fields: Record<string, string>, file: UploadFile | null): void {
    this.result = this.consume(fields, file);
    this.result.then(
      (value) => this.succeed(value),
      (err) => this.fail(err),
    );
  }

  private succeed(value: T): void {
    if (this.settled) return;
    // A consumer that returns before reading the whole file still waits for a well-formed form.
    if (this.file && !this.file.readableEnded) {
      this.file.resume();
      this.file.once("end", () => this.succeed(value));
      return;
    }
    this.settled = true;
    this.resolve(value);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.req.unpipe(this.parser);
    this.file?.destroy(err as Error);
    // The rest of a rejected upload is not worth reading: answer, then drop the connection.
    if (!this.req.res?.headersSent) this.req.res?.setHeader("Connection", "close");
    this.req.resume();
    this.reject(err);
  }
}

async function withoutBody<T>(
  form: FormSchema | null,
  query: Record<string, string>,
  opts: UploadOptions,
  consume: (fields: Record<string, string>, file: UploadFile | null) => Promise<T>,
): Promise<T> {
  if (opts.fileRequired) throw invalid("request validation failed", [missingFile]);
  return consume(checkFields(form, query, query, false), null);
}

function checkFields(
  form: FormSchema | null,
  values: Record<string, string>,
  query: Record<string, string>,
  hasFile: boolean,
): Record<string, string> {
  const source = (name: string): FieldSource => (Object.hasOwn(query, name) ? "query" : "body");
  form?.check(values, hasFile, source);
  return values;
}

function formOf(req: Request): FormSchema | null {
  const operationId = (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema
    ?.operationId;
  return operationId ? formSchema(operationId as OperationId) : null;
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
