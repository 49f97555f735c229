import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type Router } from "express";
import { referencePageHeaders } from "../pages/security-headers.js";
import { loadSpec } from "./spec.js";

const require = createRequire(import.meta.url);
// Resolved through package.json: the package's main module would load both multi-megabyte browser
// bundles into this process's heap just to tell where its files are.
const swaggerUiDir = dirname(require.resolve("swagger-ui-dist/package.json"));
const redocBundle = join(dirname(require.resolve("redoc/package.json")), "bundles", "redoc.standalone.js");

const page = (title: string, head: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;

const swaggerPage = page(
  "stampd API reference",
  '<link rel="stylesheet" href="/docs/assets/swagger-ui.css">',
  `<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>`,
);

const swaggerInit = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout",
  validatorUrl: null
});
`;

const redocPage = page(
  "stampd API reference (ReDoc)",
  "<style>body{margin:0;padding:0}</style>",
  `<redoc spec-url="/openapi.json"></redoc>
<script src="/redoc/assets/redoc.standalone.js"></script>`,
);

/** Static assets of the reference pages, from npm packages (no CDN). Mounted before validation. */
export function docsAssets(): Router {
  const router = express.Router();
  const cache = { maxAge: "1d", index: false } as const;
  router.use("/docs/assets", express.static(swaggerUiDir, cache));
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(swaggerInit);
  });
  router.get("/redoc/assets/redoc.standalone.js", (_req, res) => {
    res.sendFile(redocBundle, { maxAge: "1d" });
  });
  return router;
}

export const docsHandlers = {
  getOpenApi: (_req: express.Request, res: express.Response) => {
    res.json(loadSpec());
  },
  getDocs: (_req: express.Request, res: express.Response) => {
    res.set(referencePageHeaders).type("html").send(swaggerPage);
  },
  getRedoc: (_req: express.Request, res: express.Response) => {
    res.set(referencePageHeaders).type("html").send(redocPage);
  },
};
