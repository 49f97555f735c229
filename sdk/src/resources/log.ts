import type { components } from "../../../gen/openapi/types.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource } from "../internal/resource.js";

type Schemas = components["schemas"];

/**
 * The transparency log over batch roots, the certificate of the service's time-stamp authority,
 * and the deployment's key ring.
 */
export class Log extends APIResource {
  /**
   * `GET /keys`: every key the deployment has signed with and the period it signed in: the trust
   * anchors of the offline verifier (`verifyStamp`'s and `verifyStampProof`'s `keyRing`), so
   * stamps from before a key rotation keep verifying and a revoked key's later stamps do not.
   *
   * @example
   * const { keys } = await client.log.keyRing();
   * const result = await verifyStamp(stampJson, { keyRing: keys, proof });
   */
  keyRing(options?: RequestOptions): Promise<Schemas["KeyRing"]> {
    return this.core.request("GET", (init) => this.http.GET("/keys", init), options);
  }

  /**
   * `GET /sigstore/trusted_root.json`: the deployment's Sigstore trusted root (its stamp log keys
   * and TSA certificate chains), for verifying `stamps.sigstoreBundle()` with Sigstore's clients.
   *
   * @example
   * await writeFile("trusted_root.json", JSON.stringify(await client.log.sigstoreTrustedRoot()));
   */
  sigstoreTrustedRoot(options?: RequestOptions): Promise<Schemas["SigstoreTrustedRoot"]> {
    return this.core.request("GET", (init) => this.http.GET("/sigstore/trusted_root.json", init), options);
  }

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
   * `GET /log/tiles/checkpoint`: the tiled log's checkpoint (the same signed note as `checkpoint()`).
   *
   * @example
   * const note = await client.log.tilesCheckpoint();
   */
  tilesCheckpoint(options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/log/tiles/checkpoint", { ...init, parseAs: "text" }),
      options,
    );
  }

  /**
   * `GET /log/tiles/tile/…`: a hash tile or entry bundle by its C2SP path (see `tilePath`). To read
   * and verify the whole tiled log, from the service or any mirror, use `TiledLog`.
   *
   * @example
   * const bytes = await client.log.tile(tilePath({ level: 0, index: 0, width: 12 })); // 12 leaf hashes
   */
  tile(path: string, options?: RequestOptions): Promise<Uint8Array> {
    return this.tileUnder("/log/tiles", path, options);
  }

  /**
   * `GET /log/stamps/tiles/checkpoint`: the stamp log's checkpoint (docs/sigstore.md), whose
   * entries are the `hashedrekord` bodies of Sigstore bundles.
   *
   * @example
   * const note = await client.log.stampLogTilesCheckpoint();
   */
  stampLogTilesCheckpoint(options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/log/stamps/tiles/checkpoint", { ...init, parseAs: "text" }),
      options,
    );
  }

  /**
   * `GET /log/stamps/tiles/tile/…`: a hash tile or entry bundle of the stamp log by its C2SP path.
   *
   * @example
   * const bundle = await client.log.stampLogTile(tilePath({ level: "entries", index: 0, width: 3 }));
   */
  stampLogTile(path: string, options?: RequestOptions): Promise<Uint8Array> {
    return this.tileUnder("/log/stamps/tiles", path, options);
  }

  /**
   * A tile below `/log/tiles` or `/log/stamps/tiles`: the two take the same parameters, so the
   * paths are typed as the first's (the spec writes the grammar as one path per segment count).
   */
  private tileUnder(
    prefix: "/log/tiles" | "/log/stamps/tiles",
    path: string,
    options?: RequestOptions,
  ): Promise<Uint8Array> {
    const under = <P extends string>(p: P) => p.replace("/log/tiles", prefix) as P;
    const [, level, ...segments] = path.split("/");
    const [s1 = "", s2 = "", s3 = "", s4 = ""] = segments;
    const get = (init: object) => {
      const asBytes = { ...init, parseAs: "arrayBuffer" as const };
      const base = { level: level ?? "", s1 };
      if (segments.length === 1)
        return this.http.GET(under("/log/tiles/tile/{level}/{s1}"), { ...asBytes, params: { path: base } });
      if (segments.length === 2)
        return this.http.GET(under("/log/tiles/tile/{level}/{s1}/{s2}"), {
          ...asBytes,
          params: { path: { ...base, s2 } },
        });
      if (segments.length === 3)
        return this.http.GET(under("/log/tiles/tile/{level}/{s1}/{s2}/{s3}"), {
          ...asBytes,
          params: { path: { ...base, s2, s3 } },
        });
      return this.http.GET(under("/log/tiles/tile/{level}/{s1}/{s2}/{s3}/{s4}"), {
        ...asBytes,
        params: { path: { ...base, s2, s3, s4 } },
      });
    };
    return this.core.request("GET", get, options).then((buffer) => new Uint8Array(buffer as ArrayBuffer));
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
