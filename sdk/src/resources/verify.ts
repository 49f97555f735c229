import type { components } from "../../../gen/openapi/types.js";
import { MultipartUpload, type UploadParams } from "../internal/multipart.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource, type UploadOptions } from "../internal/resource.js";

type Schemas = components["schemas"];

/** `client.verify.stamp()` parameters: optionally the original document. */
export type VerifyStampParams = UploadParams<Schemas["VerifyStampForm"]>;

/**
 * `client.verify.document()` parameters: the stamp document and optionally the original document.
 * `stamp_json` accepts any object, as the spec does (`VerifyRequest.stamp_json` is a bare
 * `type: object`, which openapi-typescript renders as `Record<string, never>`).
 */
export type VerifyDocumentParams = { stamp_json: Schemas["StampDocument"] | object } & Omit<
  UploadParams<Schemas["VerifyForm"]>,
  "stamp_json"
>;

/** Verification of stored stamps and of stamp documents, and the public verification page. */
export class Verify extends APIResource {
  /**
   * `POST /stamps/{stamp_id}/verify`: verifies a stored stamp; with `file`, also checks that the
   * document matches the stamped hash.
   *
   * @example
   * const check = await client.verify.stamp(stamp.stamp_id, { file: "./contract.pdf" });
   * console.log(check.is_valid, check.trust_met);
   */
  async stamp(
    stampId: string,
    params: VerifyStampParams = {},
    options?: UploadOptions,
  ): Promise<Schemas["VerifyResponse"]> {
    const path = { stamp_id: stampId };
    if (params.file === undefined) {
      return this.core.request(
        "POST",
        (init) => this.http.POST("/stamps/{stamp_id}/verify", { ...init, params: { path } }),
        options,
      );
    }
    const upload = await MultipartUpload.open<Schemas["VerifyStampForm"]>(params);
    return this.core.upload(
      upload,
      (init) => this.http.POST("/stamps/{stamp_id}/verify", { ...init, params: { path } }),
      options,
    );
  }

  /**
   * `POST /verify`: verifies a stamp document (`stamp_json`) as a third party holds it. Sent as
   * JSON, or as multipart with the document text first when `file` is given.
   *
   * @example
   * const check = await client.verify.document({ stamp_json: JSON.stringify(stamp.stamp_json), file: "./contract.pdf" });
   */
  async document(params: VerifyDocumentParams, options?: UploadOptions): Promise<Schemas["VerifyResponse"]> {
    const { stamp_json, file, filename } = params;
    if (file === undefined) {
      const body = { stamp_json } as Schemas["VerifyRequest"];
      return this.core.request("POST", (init) => this.http.POST("/verify", { ...init, body }), options);
    }
    const form = { stamp_json: JSON.stringify(stamp_json), file, filename };
    const upload = await MultipartUpload.open<Schemas["VerifyForm"]>(form);
    return this.core.upload(upload, (init) => this.http.POST("/verify", init), options);
  }

  /**
   * `GET /verify/{stamp_id}`: the public HTML verification page (a 404 page for unknown ids).
   *
   * @example
   * const html = await client.verify.page(stamp.stamp_id);
   */
  page(stampId: string, options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) =>
        this.http.GET("/verify/{stamp_id}", {
          ...init,
          params: { path: { stamp_id: stampId } },
          parseAs: "text",
        }),
      options,
    );
  }
}
