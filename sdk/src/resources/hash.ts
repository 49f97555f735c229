import type { components } from "../../../gen/openapi/types.js";
import { MultipartUpload, type UploadParams } from "../internal/multipart.js";
import { APIResource, type UploadOptions } from "../internal/resource.js";

type Schemas = components["schemas"];

/** `client.hash.create()` parameters: the document and the algorithm (default sha3-256). */
export type HashParams = UploadParams<Schemas["HashForm"]>;

/** Hashing a document without stamping it. */
export class Hash extends APIResource {
  /**
   * `POST /hash`: the document's digest (nothing is stored).
   *
   * @example
   * const { hash } = await client.hash.create({ file: "./contract.pdf", algorithm: "sha256" }, {
   *   onUploadProgress: ({ loaded, total }) => console.log(`${loaded}/${total}`),
   * });
   */
  async create(params: HashParams, options?: UploadOptions): Promise<Schemas["HashResult"]> {
    const upload = await MultipartUpload.open<Schemas["HashForm"]>(params);
    return this.core.upload(upload, (init) => this.http.POST("/hash", init), options);
  }
}
