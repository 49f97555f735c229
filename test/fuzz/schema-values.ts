import type { ValidateFunction } from "ajv";
import { generateSync, type JsonSchema } from "json-schema-faker";
import type { Rng } from "./random.js";

type Json = Record<string, unknown>;

/** Attempts before giving up on a schema whose constraints json-schema-faker misses now and then. */
const ATTEMPTS = 8;

/**
 * Valid values of a JSON Schema, drawn with json-schema-faker (a kept generator that honours
 * patterns, formats, enums and bounds) and confirmed with ajv: a value ajv rejects is drawn
 * again, so a "valid" request is valid by the spec's own validator, not by the generator's word.
 */
export class SchemaValues {
  private readonly roots = new WeakMap<Json, JsonSchema>();
  private defs: unknown;

  /**
   * @param definitions schemas that `$ref`s point into (the OpenAPI components, or none)
   * @param refPrefix how refs to them are written in the schemas, e.g. `#/components/schemas/`
   */
  constructor(
    private readonly definitions: Record<string, unknown> = {},
    private readonly refPrefix = "#/components/schemas/",
  ) {}

  /** A value of `schema` that `check` accepts, or undefined when none was found. */
  valid(rng: Rng, schema: Json, check: ValidateFunction): unknown {
    const rooted = this.rooted(schema);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const value = generateSync(rooted, {
        seed: rng.next(),
        maxDefaultItems: 3,
        optionalsProbability: 0.5,
        failOnInvalidTypes: false,
      });
      if (check(value)) return value;
    }
    return undefined;
  }

  /** The schema with its refs pointed at `$defs`, which json-schema-faker resolves. */
  private rooted(schema: Json): JsonSchema {
    let root = this.roots.get(schema);
    if (!root) {
      this.defs ??= this.rebase(this.definitions);
      root = { ...(this.rebase(schema) as Json), $defs: this.defs } as JsonSchema;
      this.roots.set(schema, root);
    }
    return root;
  }

  private rebase(value: unknown): unknown {
    return JSON.parse(JSON.stringify(value).replaceAll(`"${this.refPrefix}`, '"#/$defs/'));
  }
}
