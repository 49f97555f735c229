import { fileURLToPath } from "node:url";
import type { PageScript } from "./layout.js";

// The page scripts live in browser/, outside server/, because they use the SDK and the server must not.
const entry = (script: PageScript) => fileURLToPath(new URL(`../../browser/${script}.ts`, import.meta.url));

const bundles = new Map<PageScript, Promise<string>>();

/**
 * A page script as one ES module for browsers: its TypeScript and what it imports (the SDK's
 * WebSocket client, @noble/hashes) bundled by esbuild. Built on first request and kept for the
 * life of the process, so starting the service (and every test that does) costs nothing: esbuild
 * itself is loaded then too.
 */
export function pageScript(script: PageScript): Promise<string> {
  let bundle = bundles.get(script);
  if (!bundle) {
    bundle = bundleOf(script);
    // A failed build is not kept: the next request tries again.
    bundle.catch(() => bundles.delete(script));
    bundles.set(script, bundle);
  }
  return bundle;
}

async function bundleOf(script: PageScript): Promise<string> {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [entry(script)],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
