import { fileURLToPath } from "node:url";
import express, { type Router } from "express";
import { pageScript } from "./bundle.js";
import type { PageScript } from "./layout.js";

const stylesDir = fileURLToPath(new URL("./assets/", import.meta.url));
// proof-bundle: loaded by the verification page on demand (it carries the SDK's bundle code, ~0.5 MiB).
const scripts: PageScript[] = ["landing", "verify", "dashboard", "explorer", "proof-bundle"];

/**
 * The pages' own assets under /pages/assets/: the stylesheet and the bundled page scripts. Like the
 * reference pages' assets they are exempt from rate limiting (a page costs one request, not one
 * per asset). Browsers revalidate them (ETag), so a new release shows at once.
 */
export function pageAssets(): Router {
  const router = express.Router();
  for (const script of scripts) {
    router.get(`/pages/assets/${script}.js`, async (_req, res, next) => {
      try {
        res
          .type("text/javascript")
          .setHeader("Cache-Control", "no-cache")
          .send(await pageScript(script));
      } catch (err) {
        next(err);
      }
    });
  }
  router.use("/pages/assets", express.static(stylesDir, { index: false, fallthrough: false }));
  return router;
}
