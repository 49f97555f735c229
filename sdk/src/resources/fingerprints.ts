import type { components } from "../../../gen/openapi/types.js";
import type { AcceptUndefined } from "../internal/accept-undefined.js";
import { MultipartUpload, type UploadParams } from "../internal/multipart.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource, type UploadOptions } from "../internal/resource.js";

type Schemas = components["schemas"];

/** `client.fingerprints.create()` parameters: the document and the decomposition method. */
export type CreateFingerprintParams = UploadParams<Schemas["FingerprintForm"]>;

/** Structural fingerprints: create, compare, partial proofs and stored shadow transforms. */
export class Fingerprints extends APIResource {
  /**
   * `POST /fingerprint`: the structural fingerprint of a document (nothing is stored).
   *
   * @example
   * const fp = await client.fingerprints.create({ file: "./report.docx", method: "hierarchical" });
   */
  async create(
    params: CreateFingerprintParams,
    options?: UploadOptions,
  ): Promise<Schemas["FingerprintResponse"]> {
    const upload = await MultipartUpload.open<Schemas["FingerprintForm"]>(params);
    return this.core.upload(upload, (init) => this.http.POST("/fingerprint", init), options);
  }

  /**
   * `POST /fingerprint/compare`: similarity of two fingerprint documents per scale and overall.
   *
   * @example
   * const { overall_similarity } = await client.fingerprints.compare({ fingerprint1: a, fingerprint2: b });
   */
  compare(
    body: AcceptUndefined<Schemas["CompareRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["CompareResponse"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/fingerprint/compare", { ...init, body }),
      options,
    );
  }

  /**
   * `POST /fingerprint/proof`: an existence (`section_index`), structure (`scale`) or similarity
   * (`reference_fingerprint`) proof built from a fingerprint document alone.
   *
   * @example
   * const proof = await client.fingerprints.proof({ fingerprint_json: fp, proof_type: "existence", section_index: 3 });
   * const result = verifyFingerprintProof(proof, fp);
   */
  proof(
    body: AcceptUndefined<Schemas["ProofRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["FingerprintProof"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/fingerprint/proof", { ...init, body }),
      options,
    );
  }

  /**
   * `GET /fingerprint/{stamp_id}/shadow/{scale}`: a shadow transform of a stamp's stored fingerprint.
   *
   * @example
   * const shadow = await client.fingerprints.shadow(stamp.stamp_id, 5);
   */
  shadow(
    stampId: string,
    scale: Schemas["ShadowScale"],
    options?: RequestOptions,
  ): Promise<Schemas["ShadowTransform"]> {
    return this.core.request(
      "GET",
      (init) =>
        this.http.GET("/fingerprint/{stamp_id}/shadow/{scale}", {
          ...init,
          params: { path: { stamp_id: stampId, scale } },
        }),
      options,
    );
  }
}
