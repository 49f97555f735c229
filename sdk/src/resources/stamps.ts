import type { components } from "../../../gen/openapi/types.js";
import { MultipartUpload, type UploadParams } from "../core/multipart.js";
import type { RequestOptions } from "../core/request.js";
import { APIResource } from "../core/resource.js";

type Schemas = components["schemas"];

/** `client.stamps.create()` parameters: the document and the optional stamp fields. */
export type CreateStampParams = UploadParams<Schemas["CreateStampForm"]>;

/** Stamps: create and read. */
export class Stamps extends APIResource {
  /**
   * `POST /stamps`: hashes the document (SHA3-256) and creates a stamp. Explicit fields override
   * the preset's. Retried safely: every attempt carries the same `Idempotency-Key`.
   *
   * @example
   * const stamp = await client.stamps.create({ file: "./contract.pdf", preset: "standard" });
   */
  async create(params: CreateStampParams, options?: RequestOptions): Promise<Schemas["StampResponse"]> {
    const upload = await MultipartUpload.open<Schemas["CreateStampForm"]>(params);
    return this.core.upload(upload, (init) => this.http.POST("/stamps", init), options);
  }

  /** `GET /stamps/{stamp_id}`: the stamp with the live state of its anchors and its trust score. */
  get(stampId: string, options?: RequestOptions): Promise<Schemas["StampResponse"]> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/stamps/{stamp_id}", { ...init, params: { path: { stamp_id: stampId } } }),
      options,
    );
  }

  /**
   * `GET /stamps/{stamp_id}/proof`: the Merkle proof, signed batch and log inclusion of a confirmed
   * stamp (409 while pending). Check it offline with `verifyStampProof`.
   */
  proof(stampId: string, options?: RequestOptions): Promise<Schemas["StampProof"]> {
    return this.core.request(
      "GET",
      (init) =>
        this.http.GET("/stamps/{stamp_id}/proof", { ...init, params: { path: { stamp_id: stampId } } }),
      options,
    );
  }

  /**
   * `GET /stamps/{stamp_id}/timestamp.tsr`: the stamp as a DER RFC 3161 TimeStampResp of the
   * service's TSA, for `openssl ts -verify -data <document> -in <file> -CAfile <GET /tsa/ca.pem>`.
   */
  async timestamp(stampId: string, options?: RequestOptions): Promise<Uint8Array> {
    const body = await this.core.request(
      "GET",
      (init) =>
        this.http.GET("/stamps/{stamp_id}/timestamp.tsr", {
          ...init,
          params: { path: { stamp_id: stampId } },
          parseAs: "arrayBuffer",
        }),
      options,
    );
    return new Uint8Array(body as ArrayBuffer);
  }
}
