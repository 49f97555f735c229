import type { components } from "../../../gen/openapi/types.js";
import { MultipartUpload, type UploadParams } from "../core/multipart.js";
import type { RequestOptions } from "../core/request.js";
import { APIResource, type ApiCore, type UploadOptions } from "../core/resource.js";
import type { StampdSocket } from "../ws/client.js";
import { type WaitForOptions, waitForStamp } from "./stamp-waiter.js";

type Schemas = components["schemas"];

/** `client.stamps.create()` parameters: the document and the optional stamp fields. */
export type CreateStampParams = UploadParams<Schemas["CreateStampForm"]>;

/** Stamps: create, read, and wait for their proof. */
export class Stamps extends APIResource {
  /** `openSocket` gives `waitFor` a WebSocket; it throws when the runtime has no WebSocket class. */
  constructor(
    core: ApiCore,
    private readonly openSocket?: () => StampdSocket,
  ) {
    super(core);
  }

  /**
   * `POST /stamps`: hashes the document (SHA3-256) and creates a stamp. Explicit fields override
   * the preset's. Retried safely: every attempt carries the same `Idempotency-Key`.
   *
   * @example
   * const stamp = await client.stamps.create({ file: "./contract.pdf", preset: "standard" });
   */
  async create(params: CreateStampParams, options?: UploadOptions): Promise<Schemas["StampResponse"]> {
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

  /**
   * Waits until the stamp is `confirmed` (its batch is signed and `proof()` answers) or, with
   * `until: "anchored"`, until every anchor it requested has confirmed. It reads the stamp first,
   * then follows its events on the WebSocket `stamp` channel; where no socket can be had (no
   * WebSocket class, a refused key, a server that is not stampd) it reads the stamp every
   * `pollInterval` instead. Rejects with `StampWaitTimeoutError` after `timeout` (default 10 min),
   * `APIUserAbortError` when `signal` aborts, and `StampUnreachableStateError` when the stamp can
   * never be anchored (no anchor requested, or one failed or is unavailable).
   *
   * @example
   * const stamp = await client.stamps.create({ file: "./contract.pdf" });
   * const confirmed = await client.stamps.waitFor(stamp.id, { until: "confirmed", timeout: 60_000 });
   * const proof = await client.stamps.proof(confirmed.id);
   */
  waitFor(stampId: string, options?: WaitForOptions): Promise<Schemas["StampResponse"]> {
    const get = (id: string, signal: AbortSignal) => this.get(id, { signal });
    return waitForStamp({ get, openSocket: this.openSocket }, stampId, options);
  }
}
