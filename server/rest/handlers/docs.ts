import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type Router } from "express";
import { loadSpec } from "../../contract/openapi.js";
import { referencePageHeaders } from "../../pages/security-headers.js";

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

// "Try it out" fills a form field with a sample made from its schema: an identity id made up from
// its pattern, the highest trust threshold, every anchor type, and ticks "Send empty value", so a
// field cleared by hand is still sent (and refused) empty. These plugins (Swagger UI's afterLoad
// and wrapComponents) start optional form fields blank and unsent, unless the schema gives a
// default: what the user does not fill in is left to the service's defaults.
const swaggerInit = `const blankOptionalFormFields = (system) => ({
  afterLoad(loaded) {
    const sample = loaded.fn.getSampleSchema;
    // Form fields are sampled without a media type (false); bodies and parameters with one.
    loaded.fn.getSampleSchema = (schema, contentType, config, example) => {
      const plain = schema && schema.toJS ? schema.toJS() : schema;
      if (contentType === false && plain && plain.default === undefined) return "";
      return sample(schema, contentType, config, example);
    };
  },
  wrapComponents: {
    ParameterIncludeEmpty: (Original) => (props) =>
      system.React.createElement(Original, {
        ...props,
        isIncludedOptions: { ...props.isIncludedOptions, defaultValue: false },
      }),
  },
});
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [blankOptionalFormFields],
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
  router.get("/redoc/assets/redoc.standalone.js", async (_req, res, next) => {
    try {
      res
        .set("Cache-Control", "public, max-age=86400")
        .type("application/javascript")
        .send(await redocScript());
    } catch (err) {
      next(err);
    }
  });
  return router;
}

// Redoc 2.5 hard-codes its sidebar's "API docs by Redocly" logo from its CDN: the page would ask
// another site for it on every visit (the CSP refuses it, with a console error). An empty image
// instead fails to load, and Redoc then leaves the logo out.
const REDOC_CDN_LOGO = 'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"';
let redocLocal: Promise<Buffer> | undefined;

/** The Redoc bundle without its CDN logo, read and rewritten once, on first use. */
function redocScript(): Promise<Buffer> {
  redocLocal ??= readFile(redocBundle, "utf8").then((text) =>
    Buffer.from(text.replace(REDOC_CDN_LOGO, 'src:"data:,"')),
  );
  return redocLocal;
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
