import escapeHtml from "escape-html";

/** Markup that is already safe: the only values the `html` tag inserts without escaping. */
export class SafeHtml {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/**
 * The one way pages build HTML. Every interpolated value is escaped (`& < > " '`, by escape-html,
 * the escaper express itself uses) unless it is SafeHtml made by this tag; arrays are joined and
 * null, undefined and false render nothing. Escaping makes a value inert as element text and in a
 * quoted attribute; it does not make a URL safe in href, so URLs come from `pageUrl`, never from a
 * stamp's data.
 *
 * @example
 * html`<dd>${stamp.document.version}</dd>` // "<dd>&lt;script&gt;…</dd>" for a hostile version
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}
