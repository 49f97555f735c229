import canonicalizeModule from "canonicalize";

type Canonicalize = (value: unknown) => string | undefined;

// canonicalize is CommonJS while its types declare an ES default export: depending on the loader
// (Node, tsx, a bundler) the default import is the function itself or a module holding it.
const canonicalize: Canonicalize =
  typeof canonicalizeModule === "function"
    ? (canonicalizeModule as Canonicalize)
    : (canonicalizeModule as { default: Canonicalize }).default;

/** The RFC 8785 (JSON Canonicalization Scheme) text of a JSON value. */
export function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return text;
}
