import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Result } from "axe-core";
import type { Page } from "playwright-core";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * The WCAG 2.1 A and AA violations axe-core finds on the page as it is now (contrast, labels,
 * landmarks, headings, ARIA). axe is evaluated through the DevTools protocol, which the page's
 * CSP does not govern, so the page itself is checked with its real headers.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(options: object): Promise<{ violations: Result[] }> } })
      .axe;
    const result = await axe.run({ runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] });
    return result.violations.map(
      (v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`,
    );
  });
  return violations;
}
