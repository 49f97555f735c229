import type { MinuteSeries } from "./minute-series.js";

const SVG = "http://www.w3.org/2000/svg";
/** Used until the SVG has a width of its own (not yet laid out). */
const DEFAULT_WIDTH = 600;
const HEIGHT = 200;
const LEFT = 40;
const RIGHT = 8;
const BOTTOM = 24;
const TOP = 12;

/**
 * Draws stamps per minute as bars into the dashboard's SVG, built element by element (no markup
 * strings, so nothing here can be parsed as HTML). Each bar has a title with its minute and count.
 * The drawing is as wide as the SVG is on screen, one unit a CSS pixel, so its labels keep the
 * stylesheet's font size on a phone instead of shrinking with the chart; redraw it when the SVG's
 * width changes.
 */
export function drawChart(svg: SVGSVGElement, series: MinuteSeries): void {
  const width = Math.round(svg.getBoundingClientRect().width) || DEFAULT_WIDTH;
  svg.setAttribute("viewBox", `0 0 ${width} ${HEIGHT}`);
  const max = Math.max(1, ...series.counts);
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const barWidth = (width - LEFT - RIGHT) / series.counts.length;
  const from = Date.parse(series.from);
  const parts: SVGElement[] = [
    line(LEFT, HEIGHT - BOTTOM, width - RIGHT, HEIGHT - BOTTOM),
    line(LEFT, TOP, width - RIGHT, TOP),
    text(LEFT - 6, TOP + 5, String(max), "end"),
    text(LEFT - 6, HEIGHT - BOTTOM + 5, "0", "end"),
    text(LEFT, HEIGHT - 6, "60 min ago", "start"),
    text(width - RIGHT, HEIGHT - 6, "now", "end"),
  ];
  series.counts.forEach((count, i) => {
    if (count === 0) return;
    const height = (count / max) * plotHeight;
    const bar = element("rect", {
      x: LEFT + i * barWidth + 1,
      y: HEIGHT - BOTTOM - height,
      width: Math.max(1, barWidth - 2),
      height,
    });
    const title = element("title", {});
    const minute = new Date(from + i * 60_000).toISOString().slice(11, 16);
    title.textContent = `${minute} UTC: ${count} stamp${count === 1 ? "" : "s"}`;
    bar.append(title);
    parts.push(bar);
  });
  svg.replaceChildren(...parts);
}

function element(name: string, attributes: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG, name) as SVGElement;
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  return el;
}

const line = (x1: number, y1: number, x2: number, y2: number) => element("line", { x1, y1, x2, y2 });

function text(x: number, y: number, content: string, anchor: "start" | "end"): SVGElement {
  const el = element("text", { x, y, "text-anchor": anchor });
  el.textContent = content;
  return el;
}
