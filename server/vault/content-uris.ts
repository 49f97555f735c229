import type { FieldError } from "../errors.js";

/**
 * Per-scheme rules for content URIs, beyond the spec's pattern (`^(ipfs|ar|s3|https)://\S+$`):
 * - `ipfs://<CID>[/path]`: CIDv0 (`Qm…`, 46 base58 characters) or CIDv1 in base32 (`b…`) or base36 (`k…`);
 * - `ar://<transaction id>[/path]`: 43 base64url characters;
 * - `s3://<bucket>/<key>`: an S3 bucket name (3–63 of a-z, 0-9, `.`, `-`) and a non-empty key;
 * - `https://…`: an absolute URL with a host and no user name or password (they would leak).
 */
const rules: Record<string, (rest: string) => boolean> = {
  ipfs: (rest) => /^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{50,}|k[0-9a-z]{50,})(\/\S*)?$/.test(rest),
  ar: (rest) => /^[A-Za-z0-9_-]{43}(\/\S*)?$/.test(rest),
  s3: (rest) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/\S+$/.test(rest),
  https: (rest) => {
    try {
      const url = new URL(`https://${rest}`);
      return url.hostname.length > 0 && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  },
};

/** Why `uri` is not an acceptable content URI, or undefined when it is. */
function contentUriProblem(uri: string): string | undefined {
  // Schemes are case-insensitive (RFC 3986 section 3.1), as the spec's pattern says.
  const [, written, rest] = /^([A-Za-z0-9]+):\/\/(\S+)$/.exec(uri) ?? [];
  const scheme = written?.toLowerCase() ?? "";
  const rule = Object.hasOwn(rules, scheme) ? rules[scheme] : undefined;
  if (!rule || rest === undefined) return "must be an ipfs://, ar://, s3:// or https:// URI";
  return rule(rest) ? undefined : `is not a valid ${scheme}:// URI`;
}

/** One field error per unacceptable URI, at `path/<index>` (or `path` for a single URI). */
export function contentUriErrors(uris: string[], path: string, single = false): FieldError[] {
  return uris.flatMap((uri, i) => {
    const problem = contentUriProblem(uri);
    return problem ? [{ path: single ? path : `${path}/${i}`, message: problem }] : [];
  });
}
