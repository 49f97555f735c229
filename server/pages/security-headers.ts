/**
 * Headers of every HTML page. The CSP allows only this service's own scripts, styles and
 * connections (its origin and the public base URL's, which differ behind a proxy or when the page
 * is reached by another host name): no inline script or style, no eval, no plugins, no framing.
 * Trusted Types with no policy means no DOM sink (innerHTML and the like) accepts a string, so
 * even a bug in a page script cannot turn a stamp's text into markup.
 */
export function pageSecurityHeaders(baseUrl: string): Record<string, string> {
  const origin = new URL(baseUrl).origin;
  const socketOrigin = origin.replace(/^http/, "ws");
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${origin}`,
    `style-src 'self' ${origin}`,
    // data: only for the empty favicon, which keeps browsers from requesting /favicon.ico.
    "img-src 'self' data:",
    `connect-src 'self' ${origin} ${socketOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
  return {
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "X-Frame-Options": "DENY",
  };
}

/**
 * Headers of the reference pages (/docs, /redoc), whose vendored bundles need inline styles and
 * Redoc's search worker (a blob: URL). Everything else must come from this service (the Redoc
 * bundle is served without its CDN logo, server/rest/handlers/docs.ts).
 */
export const referencePageHeaders: Readonly<Record<string, string>> = {
  "Content-Security-Policy": [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "X-Content-Type-Options": "nosniff",
};
