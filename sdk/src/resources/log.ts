import type { components } from "../../../gen/openapi/types.js";
import type { RequestOptions } from "../core/request.js";
import { APIResource } from "../core/resource.js";

type Schemas = components["schemas"];

/** The transparency log over batch roots, and the certificate of the service's time-stamp authority. */
export class Log extends APIResource {
  /**
   * `GET /log`: origin, verifier key (pin it for `verifyCheckpoint`) and the latest checkpoint.
   *
   * @example
   * const { verifier_key, checkpoint } = await client.log.info();
   */
  info(options?: RequestOptions): Promise<Schemas["LogInfo"]> {
    return this.core.request("GET", (init) => this.http.GET("/log", init), options);
  }

  /**
   * `GET /log/checkpoint`: the latest C2SP signed checkpoint, as text.
   *
   * @example
   * const { verifier_key } = await client.log.info();
   * const checkpoint = await verifyCheckpoint(await client.log.checkpoint(), [verifier_key]);
   * console.log(checkpoint.treeSize);
   */
  checkpoint(options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/log/checkpoint", { ...init, parseAs: "text" }),
      options,
    );
  }

  /**
   * `GET /log/inclusion`: the audit path of entry `index` in the tree of `treeSize` entries.
   *
   * @example
   * const hex = (h: string) => Uint8Array.from(Buffer.from(h, "hex"));
   * const p = await client.log.inclusion(entryIndex, checkpoint.treeSize);
   * verifyInclusion(hex(p.leaf_hash), p.index, p.tree_size, p.proof.map(hex), checkpoint.rootHash); // true
   */
  inclusion(
    index: number,
    treeSize: number,
    options?: RequestOptions,
  ): Promise<Schemas["LogInclusionProof"]> {
    return this.core.request(
      "GET",
      (init) =>
        this.http.GET("/log/inclusion", { ...init, params: { query: { index, tree_size: treeSize } } }),
      options,
    );
  }

  /**
   * `GET /log/consistency`: proof that the tree of `second` entries extends the tree of `first`.
   *
   * @example
   * // Has the log only grown since the checkpoint saved last time?
   * const p = await client.log.consistency(saved.treeSize, latest.treeSize);
   * verifyConsistency(saved.treeSize, latest.treeSize, saved.rootHash, latest.rootHash, p.proof.map(hex)); // true
   */
  consistency(
    first: number,
    second: number,
    options?: RequestOptions,
  ): Promise<Schemas["LogConsistencyProof"]> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/log/consistency", { ...init, params: { query: { first, second } } }),
      options,
    );
  }

  /**
   * `GET /tsa/ca.pem`: the CA certificate of the service's RFC 3161 time-stamp authority, PEM.
   *
   * @example
   * await writeFile("tsa-ca.pem", await client.log.tsaCertificate());
   * // openssl ts -verify -data contract.pdf -in stamp.tsr -CAfile tsa-ca.pem
   */
  tsaCertificate(options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/tsa/ca.pem", { ...init, parseAs: "text" }),
      options,
    );
  }
}
