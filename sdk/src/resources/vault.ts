import type { components, operations } from "../../../gen/openapi/types.js";
import type { AcceptUndefined } from "../internal/accept-undefined.js";
import { PagePromise } from "../internal/pagination.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource } from "../internal/resource.js";

type Schemas = components["schemas"];

/** `client.vault.list()` query: state filter, page size, first offset. */
export type VaultListQuery = AcceptUndefined<NonNullable<operations["listVaults"]["parameters"]["query"]>>;

/**
 * The dead man's switch key escrow. Every method needs an API key except `fees()`. POSTs that
 * create or renew (`create`, `heartbeat`, `batchHeartbeat`) are safe to retry: the server replays
 * a request it has seen with the same `Idempotency-Key`.
 */
export class Vault extends APIResource {
  /**
   * `POST /vault/create`: escrows an already encrypted key; the vault starts `active`. Without
   * `recipient_public_key` the vault is owner-bound: only this account can retrieve its key.
   *
   * @example
   * const vault = await client.vault.create({ encrypted_key: ciphertext.toString("base64"), heartbeat_deadline: 2_592_000 });
   */
  create(
    body: AcceptUndefined<Schemas["CreateVaultRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["VaultResponse"]> {
    return this.core.request("POST", (init) => this.http.POST("/vault/create", { ...init, body }), options);
  }

  /**
   * `GET /vault/{id}`: a vault of the calling account (never its key).
   *
   * @example
   * const vault = await client.vault.get("vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M");
   * console.log(vault.state, vault.deadline);
   */
  get(vaultId: string, options?: RequestOptions): Promise<Schemas["VaultResponse"]> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/vault/{id}", { ...init, params: { path: { id: vaultId } } }),
      options,
    );
  }

  /**
   * `GET /vault/list`: the calling account's vaults, newest first. Await it for one page, or
   * iterate all of them: `for await (const vault of client.vault.list())`.
   *
   * @example
   * const page = await client.vault.list({ state: "active", limit: 50 });
   * for await (const vault of client.vault.list()) console.log(vault.id, vault.deadline);
   */
  list(query: VaultListQuery = {}, options?: RequestOptions): PagePromise<Schemas["VaultListItem"]> {
    const { offset = 0, ...filter } = query;
    return new PagePromise(
      (at) =>
        this.core.request(
          "GET",
          (init) => this.http.GET("/vault/list", { ...init, params: { query: { ...filter, offset: at } } }),
          options,
        ),
      offset,
    );
  }

  /**
   * `POST /vault/{id}/heartbeat`: renews an active vault; the fee receipt is consumed.
   *
   * @example
   * const receipt = await client.vault.heartbeat(vault.id, { fee_receipt: feeReceipt });
   * console.log(receipt.next_deadline);
   */
  heartbeat(
    vaultId: string,
    body: AcceptUndefined<Schemas["HeartbeatRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["HeartbeatReceipt"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/vault/{id}/heartbeat", { ...init, params: { path: { id: vaultId } }, body }),
      options,
    );
  }

  /**
   * `POST /vault/batch-heartbeat`: renews several vaults with one receipt; failures are listed, not thrown.
   *
   * @example
   * const { renewed, errors } = await client.vault.batchHeartbeat({ vault_ids: [a.id, b.id], fee_receipt: feeReceipt });
   */
  batchHeartbeat(
    body: AcceptUndefined<Schemas["BatchHeartbeatRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["BatchHeartbeatResult"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/vault/batch-heartbeat", { ...init, body }),
      options,
    );
  }

  /**
   * `POST /vault/{id}/release`: the owner releases the vault early (if created with `allow_manual_release`).
   *
   * @example
   * await client.vault.release(vault.id, { reason: "handed over early" });
   */
  release(
    vaultId: string,
    body: AcceptUndefined<Schemas["ReleaseRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["ReleaseResult"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/vault/{id}/release", { ...init, params: { path: { id: vaultId } }, body }),
      options,
    );
  }

  /**
   * `POST /vault/{id}/retrieve`: the encrypted key of a released or expired vault. For a vault
   * with a recipient key, `proof_of_identity` is the recipient's Ed25519 signature over
   * `stampd-vault-retrieve:<vault_id>:<signed_at>` and `signed_at` is required; for an owner-bound
   * vault (own account only) it is at least 16 fresh random bytes in base64. Either proof is
   * accepted once: to retry, make a new one.
   *
   * @example
   * // owner-bound vault
   * const proof = randomBytes(32).toString("base64");
   * const { encrypted_key } = await client.vault.retrieve(vaultId, { proof_of_identity: proof });
   */
  retrieve(
    vaultId: string,
    body: AcceptUndefined<Schemas["RetrieveRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["RetrievedKey"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/vault/{id}/retrieve", { ...init, params: { path: { id: vaultId } }, body }),
      options,
    );
  }

  /**
   * `POST /vault/{id}/burn`: destroys the escrowed key for good.
   *
   * @example
   * await client.vault.burn(vault.id, { reason: "key compromised" });
   */
  burn(
    vaultId: string,
    body: AcceptUndefined<Schemas["BurnRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["BurnResult"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/vault/{id}/burn", { ...init, params: { path: { id: vaultId } }, body }),
      options,
    );
  }

  /**
   * `POST /vault/{id}/add-mirror`: adds a content URI (idempotent for a URI already listed).
   *
   * @example
   * await client.vault.addMirror(vault.id, { uri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi" });
   */
  addMirror(
    vaultId: string,
    body: AcceptUndefined<Schemas["AddMirrorRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["VaultMirrors"]> {
    return this.core.request(
      "POST",
      (init) =>
        this.http.POST("/vault/{id}/add-mirror", { ...init, params: { path: { id: vaultId } }, body }),
      options,
    );
  }

  /**
   * `GET /vault/fees`: the fee schedule a receipt must cover (no key needed).
   *
   * @example
   * const { heartbeat_fee, currency, fee_recipient } = await client.vault.fees();
   */
  fees(options?: RequestOptions): Promise<Schemas["VaultFees"]> {
    return this.core.request("GET", (init) => this.http.GET("/vault/fees", init), options);
  }

  /**
   * `POST /vault/group/create`: groups vaults so one batch heartbeat renews them all.
   *
   * @example
   * const group = await client.vault.createGroup({ name: "estate", vault_ids: [a.id, b.id], interval: 2_592_000 });
   */
  createGroup(
    body: AcceptUndefined<Schemas["HeartbeatGroupRequest"]>,
    options?: RequestOptions,
  ): Promise<Schemas["HeartbeatGroup"]> {
    return this.core.request(
      "POST",
      (init) => this.http.POST("/vault/group/create", { ...init, body }),
      options,
    );
  }
}
