import { toFile, type Uploadable } from "./uploads.js";

/**
 * The fields of a multipart operation as the SDK takes them: the spec's form with `file` as
 * anything `Uploadable`, plus the file name to send (default: the File's or path's name).
 */
export type UploadParams<Form extends { file?: unknown }> = Omit<Form, "file"> &
  (undefined extends Form["file"] ? { file?: Uploadable } : { file: Uploadable }) & { filename?: string };

/** The spec's form with the upload turned into a named `File`, ready for `multipartBody`. */
export type PreparedForm<Form extends { file?: unknown }> = Omit<Form, "file"> & { file?: File };

/** Opens or reads the upload of `params` and returns the form openapi-fetch sends. */
export async function prepareForm<Form extends { file?: unknown }>(
  params: UploadParams<Form>,
): Promise<PreparedForm<Form>> {
  const { file, filename, ...fields } = params as { file?: Uploadable; filename?: string };
  return {
    ...fields,
    ...(file === undefined ? {} : { file: await toFile(file, filename) }),
  } as PreparedForm<Form>;
}

/**
 * openapi-fetch bodySerializer for multipart operations. Text fields go first and the file part
 * last: the server hashes the document while it streams in and rejects a field that comes after
 * the file (the spec's multipart rules, as S3's POST upload). Absent fields are not sent.
 */
export function multipartBody(form: Record<string, unknown> | undefined = {}): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(form)) {
    if (name === "file" || value === undefined || value === null) continue;
    data.append(name, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  if (form.file instanceof File) data.append("file", form.file, form.file.name);
  return data;
}
