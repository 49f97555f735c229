import { VERSION } from "../version.js";
import { html, type SafeHtml } from "./html.js";
import { linkTo } from "./links.js";

/** The page scripts this service bundles (browser/<name>.ts). */
export type PageScript = "landing" | "verify" | "dashboard" | "explorer" | "proof-bundle";

export interface PageParts {
  /** The public base URL every link and asset starts with. */
  base: string;
  title: string;
  main: SafeHtml;
  script?: PageScript;
}

/**
 * The frame of every page: landmarks (banner, navigation, main, contentinfo), a skip link, the
 * shared stylesheet (screen and print) and at most one module script, all from this service.
 */
export function layout({ base, title, main, script }: PageParts): string {
  const assets = (file: string) => linkTo(base, "pages", "assets", file);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} - stampd</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets("pages.css")}">
${script ? html`<script type="module" src="${assets(`${script}.js`)}"></script>` : ""}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="${linkTo(base, "")}">stampd</a>
<nav aria-label="Site">
<ul>
<li><a href="${linkTo(base, "explorer")}">Explorer</a></li>
<li><a href="${linkTo(base, "dashboard")}">Dashboard</a></li>
<li><a href="${linkTo(base, "docs")}">API reference</a></li>
</ul>
</nav>
</header>
<main id="main" tabindex="-1">
${main}
</main>
<footer class="site-footer">
<p>stampd ${VERSION} · <a href="${linkTo(base, "openapi.json")}">OpenAPI description</a></p>
</footer>
</body>
</html>
`.markup;
}
