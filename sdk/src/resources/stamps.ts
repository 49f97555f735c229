import type { components, operations } from "../../../gen/openapi/types.js";
import { CursorPagePromise } from "../internal/cursor-pagination.js";
import { MultipartUpload, type UploadParams } from "../internal/multipart.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource, type ApiCore, type UploadOptions } from "../internal/resource.js";
import type { StampdSocket } from "../ws/client.js";
import { type WaitForOptions, waitForStamp } from "./stamp-waiter.js";

type Schemas = components["schemas"];

/** `client.stamps.create()` parameters: the document and the optional stamp fields. */
export type CreateStampParams = UploadParams<Schemas["CreateStampForm"]>;

/** `client.stamps.createFromHash()` parameters: the hash, and the stamp fields as query parameters. */
export type CreateStampFromHashParams = Schemas["StampHashRequest"] &
  Pick<
    NonNullable<operations["createStamp"]["parameters"]["query"]>,
    "anchors" | "trust_threshold" | "version" | "identity_id"
  >;

/** `client.stamps.search()` query: the document hash, page size, first cursor. */
export interface StampSearchQuery {
  /**
   * `<algorithm>:<hex digest>`, e.g. `sha256:9f86…`; stamps of that algorithm match, and a SHA-256
   * also matches uploads whose content has it (their SHA-256 is computed beside their SHA3-256).
   */
  hash: string;
  /** Stamps per page, 1 to 500 (default 50). */
  limit?: number | undefined;
  /** Start after this cursor (a page's `next_cursor`); absent: from the newest stamp. */
  cursor?: string | undefined;
}

/** Stamps: create, read, find by document hash, and wait for their proof. */
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

  /**
   * `POST /stamps` with a JSON body: a stamp of a hash computed by the caller (`sha256:<hex>`,
   * `sha3-256:<hex>` or `blake3:<hex>`); the document is never sent. SHA-256 is the hash
   * `openssl`, `sha256sum` and OpenTimestamps (`openTimestamps()`) share. Retried safely with one
   * `Idempotency-Key`.
   *
   * @example
   * const hash = `sha256:${createHash("sha256").update(await readFile("contract.pdf")).digest("hex")}`;
   * const stamp = await client.stamps.createFromHash({ hash, anchors: "log,bitcoin" });
   */
  createFromHash(
    params: CreateStampFromHashParams,
    options?: RequestOptions,
  ): Promise<Schemas["StampResponse"]> {
    const { hash, ...query } = params;
    return this.core.request(
      "POST",
      (init) => this.http.POST("/stamps", { ...init, params: { query }, body: { hash } }),
      options,
    );
  }

  /**
   * `GET /stamps/{stamp_id}`: the stamp with the live state of its anchors and its trust score.
   *
   * @example
   * const stamp = await client.stamps.get("stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8");
   * console.log(stamp.status, stamp.anchors.map((a) => `${a.type} ${a.status}`));
   */
  get(stampId: string, options?: RequestOptions): Promise<Schemas["StampResponse"]> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/stamps/{stamp_id}", { ...init, params: { path: { stamp_id: stampId } } }),
      options,
    );
  }

  /**
   * `GET /stamps?hash=`: the stamps of a document hash, newest first. Public: every stamp of the
   * hash, whoever made it. Await it for one page (`next_cursor` null on the last), or iterate every
   * match across pages with `for await`. No match is an empty page, not an error.
   *
   * @example
   * const page = await client.stamps.search({ hash: `sha256:${digest}` });
   * if (page.items.length) console.log("last stamped", page.items[0].created_at);
   * for await (const match of client.stamps.search({ hash: `sha256:${digest}`, limit: 100 })) {
   *   console.log(match.stamp_id, match.created_at);
   * }
   */
  search(
    query: StampSearchQuery,
    options?: RequestOptions,
  ): CursorPagePromise<Schemas["StampSearchItem"], Schemas["StampSearchPage"]> {
    const { cursor, ...rest } = query;
    return new CursorPagePromise(
      (at) =>
        this.core.request(
          "GET",
          (init) =>
            this.http.GET("/stamps", {
              ...init,
              params: { query: { ...rest, ...(at === undefined ? {} : { cursor: at }) } },
            }),
          options,
        ),
      cursor,
    );
  }

  /**
   * `GET /stamps/{stamp_id}/proof`: the Merkle proof, signed batch and log inclusion of a confirmed
   * stamp (409 while pending). Check it offline with `verifyStampProof`.
   *
   * @example
   * const proof = await client.stamps.proof(stamp.stamp_id);
   * const { verifier_key } = await client.log.info();
   * const check = await verifyStampProof(stamp.stamp_json, proof, { trustedLogKeys: [verifier_key] });
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
   * `GET /stamps/{stamp_id}/sigstore`: the stamp as a Sigstore bundle v0.3 (docs/sigstore.md),
   * which Sigstore's clients verify with `GET /sigstore/trusted_root.json` and the `sigstore` key
   * of `GET /keys` its `verificationMaterial.publicKey.hint` names (409 while pending).
   *
   * @example
   * const bundle = await client.stamps.sigstoreBundle(stamp.stamp_id);
   * await writeFile("contract.pdf.sigstore.json", JSON.stringify(bundle));
   */
  sigstoreBundle(stampId: string, options?: RequestOptions): Promise<Schemas["SigstoreBundle"]> {
    return this.core.request(
      "GET",
      (init) =>
        this.http.GET("/stamps/{stamp_id}/sigstore", { ...init, params: { path: { stamp_id: stampId } } }),
      options,
    );
  }

  /**
   * `GET /stamps/{stamp_id}/timestamp.tsr`: the stamp as a DER RFC 3161 TimeStampResp of the
   * service's TSA, for `openssl ts -verify -data <document> -in <file> -CAfile <GET /tsa/ca.pem>`.
   *
   * @example
   * await writeFile("contract.pdf.tsr", await client.stamps.timestamp(stamp.stamp_id));
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
   * `GET /stamps/{stamp_id}/timestamp.ots`: the stamp's `bitcoin` anchor as an OpenTimestamps
   * proof file, from the document's SHA-256 to the calendars' attestations, for
   * `ots verify -f <document> <file>`. 404 `ots_not_requested` without that anchor; 409
   * `ots_pending` until a calendar has answered for the batch root.
   *
   * @example
   * await writeFile("contract.pdf.ots", await client.stamps.openTimestamps(stamp.stamp_id));
   */
  async openTimestamps(stampId: string, options?: RequestOptions): Promise<Uint8Array> {
    const body = await this.core.request(
      "GET",
      (init) =>
        this.http.GET("/stamps/{stamp_id}/timestamp.ots", {
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
   * `pollInterval` instead. Pass `stamp`, the stamp as just created or read, to spare a read.
   * Rejects with `StampWaitTimeoutError` after `timeout` (default 10 min),
   * `APIUserAbortError` when `signal` aborts, and `StampUnreachableStateError` when the stamp can
   * never be anchored (no anchor requested, or one failed or is unavailable).
   *
   * @example
   * const stamp = await client.stamps.create({ file: "./contract.pdf" });
   * const confirmed = await client.stamps.waitFor(stamp.stamp_id, { until: "confirmed", timeout: 60_000, stamp });
   * const proof = await client.stamps.proof(confirmed.stamp_id);
   */
  waitFor(stampId: string, options?: WaitForOptions): Promise<Schemas["StampResponse"]> {
    const get = (id: string, signal: AbortSignal) => this.get(id, { signal });
    return waitForStamp({ get, openSocket: this.openSocket }, stampId, options);
  }
}
