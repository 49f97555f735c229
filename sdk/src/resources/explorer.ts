import type { components, operations } from "../../../gen/openapi/types.js";
import type { AcceptUndefined } from "../internal/accept-undefined.js";
import { PagePromise } from "../internal/pagination.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource } from "../internal/resource.js";

type Schemas = components["schemas"];

/** `client.explorer.vaults()` query: page size, first offset, state filter. */
export type ExplorerVaultsQuery = AcceptUndefined<
  NonNullable<operations["listExplorerVaults"]["parameters"]["query"]>
>;

/** The public, read-only explorer. */
export class Explorer extends APIResource {
  /**
   * `GET /explorer/api/vaults`: every vault, newest first. Await it for one page, or iterate all
   * of them: `for await (const vault of client.explorer.vaults({ state: "active" }))`.
   *
   * @example
   * for await (const vault of client.explorer.vaults({ state: "expired" })) console.log(vault.id);
   */
  vaults(
    query: ExplorerVaultsQuery = {},
    options?: RequestOptions,
  ): PagePromise<Schemas["ExplorerVaultItem"]> {
    const { offset = 0, ...filter } = query;
    return new PagePromise(
      (at) =>
        this.core.request(
          "GET",
          (init) =>
            this.http.GET("/explorer/api/vaults", { ...init, params: { query: { ...filter, offset: at } } }),
          options,
        ),
      offset,
    );
  }

  /**
   * `GET /explorer`: the public explorer page (HTML text) with one page of the vault list, as
   * `vaults()` filters and pages it, and the statistics.
   *
   * @example
   * const html = await client.explorer.page({ state: "active", limit: 20 });
   */
  page(query: ExplorerVaultsQuery = {}, options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/explorer", { ...init, params: { query }, parseAs: "text" }),
      options,
    );
  }

  /**
   * `GET /explorer/api/stats`: totals over all vaults.
   *
   * @example
   * const stats = await client.explorer.stats();
   */
  stats(options?: RequestOptions): Promise<Schemas["ExplorerStats"]> {
    return this.core.request("GET", (init) => this.http.GET("/explorer/api/stats", init), options);
  }
}
