import type { HttpClient } from "./http.js";
import type { MultipartUpload, UploadInit } from "./multipart.js";
import {
  type AttemptInit,
  type FetchResult,
  type RequesterSettings,
  type RequestOptions,
  request,
} from "./request.js";
import type { UploadProgressListener } from "./upload-progress.js";

/** Options of a method that uploads a document. */
export interface UploadOptions extends RequestOptions {
  /**
   * Called as the document's bytes leave, with `{ loaded, total }` (`total` undefined for a
   * stream of unknown length); a retry starts again from 0. On Node it follows the bytes as they
   * are sent; browsers' fetch reports no upload progress, so there it is called at the start (0)
   * and once the whole document is sent.
   */
  onUploadProgress?: UploadProgressListener | undefined;
}

/** What every resource shares: the openapi-fetch client and the retry and timeout settings. */
export class ApiCore {
  constructor(
    readonly http: HttpClient,
    private readonly settings: RequesterSettings,
  ) {}

  /** Runs one call with retries; resolves to the success body or throws an `APIError`. */
  request<R extends FetchResult>(
    method: "GET" | "POST",
    attempt: (init: AttemptInit) => Promise<R>,
    options?: RequestOptions,
  ): Promise<Exclude<R["data"], undefined>> {
    return request(this.settings, method, attempt, options);
  }

  /**
   * Runs one multipart POST with retries: each attempt sends the upload's body anew, and a call
   * whose body cannot be sent again (a stream that started) is not retried.
   */
  upload<Form, R extends FetchResult>(
    upload: MultipartUpload<Form>,
    attempt: (init: UploadInit<Form>) => Promise<R>,
    options?: UploadOptions,
  ): Promise<Exclude<R["data"], undefined>> {
    const onProgress = options?.onUploadProgress;
    return request(
      this.settings,
      "POST",
      async (init) => {
        const result = await attempt(upload.attempt(init, onProgress));
        upload.sent(onProgress);
        return result;
      },
      options,
      () => upload.replayable,
    );
  }
}

/** Base of the resource classes (`client.stamps`, `client.vault`, ...). */
export abstract class APIResource {
  constructor(protected readonly core: ApiCore) {}

  protected get http(): HttpClient {
    return this.core.http;
  }
}
