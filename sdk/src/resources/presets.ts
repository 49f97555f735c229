import type { components } from "../../../gen/openapi/types.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource } from "../internal/resource.js";

type Schemas = components["schemas"];

/** Named stamp configurations. */
export class Presets extends APIResource {
  /**
   * `GET /presets`: every preset, in the order casual, standard, archival, maximum.
   *
   * @example
   * for (const preset of await client.presets.list()) console.log(preset.name);
   */
  list(options?: RequestOptions): Promise<Schemas["Preset"][]> {
    return this.core.request("GET", (init) => this.http.GET("/presets", init), options);
  }

  /**
   * `GET /presets/{name}`: one preset (404 for a name that is not a preset).
   *
   * @example
   * const archival = await client.presets.get("archival");
   */
  get(name: string, options?: RequestOptions): Promise<Schemas["Preset"]> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/presets/{name}", { ...init, params: { path: { name } } }),
      options,
    );
  }
}
