import type { components } from "../../../gen/openapi/types.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource } from "../internal/resource.js";

type Schemas = components["schemas"];

/** Ed25519 signing identities held by the service for the account that created them. */
export class Identities extends APIResource {
  /**
   * `POST /identity`: a new identity of the calling account (needs an API key).
   *
   * @example
   * const identity = await client.identities.create();
   * await client.stamps.create({ file: "./contract.pdf", identity_id: identity.identity_id });
   */
  create(options?: RequestOptions): Promise<Schemas["IdentityResponse"]> {
    return this.core.request("POST", (init) => this.http.POST("/identity", init), options);
  }

  /**
   * `GET /identity/{identity_id}`: public information about an identity.
   *
   * @example
   * const { public_key } = await client.identities.get("idn_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8");
   */
  get(identityId: string, options?: RequestOptions): Promise<Schemas["IdentityInfo"]> {
    return this.core.request(
      "GET",
      (init) =>
        this.http.GET("/identity/{identity_id}", { ...init, params: { path: { identity_id: identityId } } }),
      options,
    );
  }
}
