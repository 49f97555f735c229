/**
 * `<base>/<segments…>` with each segment percent-encoded, so a stamp id from a URL can never
 * change the path, add a query or turn the link into another scheme. `base` is the deployment's
 * public base URL (SERVICE_BASE_URL), which pages use for every link and asset so that they also
 * work behind a proxy that serves the service under a path prefix.
 */
export function linkTo(base: string, ...segments: string[]): string {
  return [base, ...segments.map(encodeURIComponent)].join("/");
}
