import { describe, expect, it } from "vitest";
import { html, SafeHtml } from "../../server/pages/html.js";

// The one escaping function every page goes through: each hostile value must come out as text,
// whether it lands in element content or in a double- or single-quoted attribute.

const hostile: [name: string, value: unknown, want: string][] = [
  ["a script element", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
  ["closing a double-quoted attribute", '" onmouseover="alert(1)', "&quot; onmouseover=&quot;alert(1)"],
  ["closing a single-quoted attribute", "' onfocus='alert(1)", "&#39; onfocus=&#39;alert(1)"],
  ["an entity, kept literal", "&lt;b&gt;", "&amp;lt;b&amp;gt;"],
  ["an image with onerror", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
  ["an SVG with onload", "<svg/onload=alert(1)>", "&lt;svg/onload=alert(1)&gt;"],
  ["closing a textarea", "</textarea><script>", "&lt;/textarea&gt;&lt;script&gt;"],
  ["a comment opener", "<!-- x -->", "&lt;!-- x --&gt;"],
  ["text that is already safe", "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D", "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D"],
  ["non-ASCII text", "Zürich ✓ 日本 <", "Zürich ✓ 日本 &lt;"],
  ["a number", 42, "42"],
  ["an object whose text is markup", { toString: () => "<b>x</b>" }, "&lt;b&gt;x&lt;/b&gt;"],
];

describe("html`…`", () => {
  it.each(hostile)("escapes %s", (_name, value, want) => {
    expect(html`<p title="${value}">${value}</p>`.markup).toBe(`<p title="${want}">${want}</p>`);
    expect(html`<p title='${value}'>`.markup).toBe(`<p title='${want}'>`);
  });

  it("leaves no markup character from a value unescaped", () => {
    const all = hostile.map(([, value]) => String(value)).join("");
    const out = html`${all}`.markup;
    expect(out).not.toMatch(/[<>"']/);
  });

  it("inserts SafeHtml made by the tag as it is, and nests", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`<p>${inner}</p>`.markup).toBe("<p><b>&lt;i&gt;</b></p>");
  });

  it("joins arrays, escaping each item", () => {
    expect(html`<ul>${["<a>", html`<li>ok</li>`]}</ul>`.markup).toBe("<ul>&lt;a&gt;<li>ok</li></ul>");
  });

  it("renders null, undefined and false as nothing, but 0 and empty text as themselves", () => {
    expect(html`[${null}${undefined}${false}]`.markup).toBe("[]");
    expect(html`[${0}${""}]`.markup).toBe("[0]");
  });

  it("does not trust a look-alike of SafeHtml", () => {
    const forged = { markup: "<script>", toString: () => "<script>" };
    expect(html`${forged}`.markup).toBe("&lt;script&gt;");
    expect(html`${new SafeHtml("<br>")}`.markup).toBe("<br>");
  });
});
