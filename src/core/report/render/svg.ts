/**
 * A small SVG renderer for report charts (grouped bars, lines, box plots), so reports written by
 * the CLI carry charts without a browser. Output is a standalone SVG document; every piece of text
 * (titles, labels, legend, tooltips) is XML-escaped. Layout is deterministic: the same chart gives
 * byte-identical SVG.
 */
import type { BoxStats, ChartSection } from '../model';
import { formatTick } from '../format';
import { escapeXml } from '../../text/escape';

export interface SvgOptions {
  width?: number;
  height?: number;
  theme?: 'light' | 'dark';
}

/** Series colours (Tableau 10: distinguishable, and readable on light and dark backgrounds). */
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

const THEMES = {
  light: { bg: '#ffffff', fg: '#1f1f1f', muted: '#616161', grid: '#e5e5e5', axis: '#8a8a8a', ref: '#c42b1c' },
  dark: { bg: '#1e1e1e', fg: '#e6e6e6', muted: '#a0a0a0', grid: '#3a3a3a', axis: '#7a7a7a', ref: '#f48771' },
};

const FONT = 'system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif';

/** Approximate rendered width of text (average glyph ≈ 0.58 em). */
function textWidth(text: string, size: number): number {
  return text.length * size * 0.58;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`;
}

/** "Nice" tick values covering [lo, hi] (steps of 1, 2, 2.5 or 5 × 10^k), about `count` of them. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) {
    const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= d;
    hi += d;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const start = Math.floor(lo / step + 1e-9) * step;
  const end = Math.ceil(hi / step - 1e-9) * step;
  const out: number[] = [];
  for (let v = start; v <= end + step * 1e-6; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function num(x: number): string {
  return String(Math.round(x * 100) / 100);
}

/** The y range of a chart: data, references and the fixed bounds (bars and lines include 0). */
function yExtent(chart: ChartSection): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  const see = (v: number | null | undefined) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  for (const s of chart.series) {
    for (const v of s.values ?? []) see(v);
    for (const b of s.boxes ?? []) if (b) [b.min, b.max].forEach(see);
  }
  for (const r of chart.references ?? []) see(r.value);
  if (chart.chart !== 'box') see(0);
  if (lo === Infinity) {
    lo = 0;
    hi = 1;
  }
  if (chart.yMin !== undefined) lo = chart.yMin;
  if (chart.yMax !== undefined) hi = Math.max(chart.yMax, chart.yMin !== undefined ? chart.yMin : -Infinity);
  // A fixed maximum below the data would hide bars: widen to the data.
  if (chart.yMax !== undefined)
    for (const s of chart.series) for (const v of s.values ?? []) if (v !== null && v > hi) hi = v;
  return [lo, hi];
}

/** The plot area of a chart: its place in the SVG, the y scale, the category bands and the colours. */
interface PlotArea {
  chart: ChartSection;
  t: (typeof THEMES)[keyof typeof THEMES];
  colour: (i: number) => string;
  left: number;
  top: number;
  plotW: number;
  plotH: number;
  yMin: number;
  yMax: number;
  band: number;
  sy: (v: number) => number;
  cx: (i: number) => number;
}

/** The category labels under the x axis (turned when they do not fit their band) and the x-axis label. */
function categoryLabels(p: PlotArea, rotate: boolean, H: number): string[] {
  const { chart, t, left, top, plotW, plotH, cx } = p;
  const parts: string[] = [];
  const cats = chart.categories;
  cats.forEach((c, i) => {
    const label = truncate(c, 24);
    const px = cx(i);
    const py = top + plotH + 14;
    const title = label !== c ? `<title>${escapeXml(c)}</title>` : '';
    if (rotate) {
      parts.push(
        `<text x="${num(px)}" y="${num(py)}" transform="rotate(-40 ${num(px)} ${num(py)})" text-anchor="end" ` +
          `font-size="11" fill="${t.fg}">${title}${escapeXml(label)}</text>`,
      );
    } else {
      parts.push(
        `<text x="${num(px)}" y="${num(py)}" text-anchor="middle" font-size="11" fill="${t.fg}">${title}${escapeXml(label)}</text>`,
      );
    }
  });
  if (chart.xLabel) {
    parts.push(
      `<text x="${num(left + plotW / 2)}" y="${H - 8}" text-anchor="middle" font-size="11" fill="${t.muted}">${escapeXml(truncate(chart.xLabel, 80))}</text>`,
    );
  }
  return parts;
}

/** One bar per series and category, side by side within the category band. */
function barMarks(p: PlotArea): string[] {
  const { chart, colour, left, yMin, yMax, band, sy } = p;
  const parts: string[] = [];
  const cats = chart.categories;
  const nSeries = chart.series.length;
  const group = band * 0.8;
  const bw = group / Math.max(1, nSeries);
  chart.series.forEach((s, si) => {
    (s.values ?? []).forEach((v, ci) => {
      if (v === null) return;
      const x = left + band * ci + (band - group) / 2 + bw * si;
      const y0 = sy(Math.max(Math.min(0, yMax), yMin));
      const y1 = sy(Math.min(Math.max(v, yMin), yMax));
      const h = Math.abs(y0 - y1);
      parts.push(
        `<rect x="${num(x + 0.5)}" y="${num(Math.min(y0, y1))}" width="${num(Math.max(1, bw - 1))}" ` +
          `height="${num(Math.max(h, v === 0 ? 0 : 0.5))}" ` +
          `fill="${colour(si)}"><title>${escapeXml(`${s.name} · ${cats[ci]}: ${formatTick(v)}`)}</title></rect>`,
      );
    });
  });
  return parts;
}

/** One line per series (broken at missing values) with a dot on each value. */
function lineMarks(p: PlotArea): string[] {
  const { chart, colour, sy, cx } = p;
  const parts: string[] = [];
  const cats = chart.categories;
  chart.series.forEach((s, si) => {
    const vals = s.values ?? [];
    let path = '';
    let pen = false;
    vals.forEach((v, ci) => {
      if (v === null) {
        pen = false;
        return;
      }
      path += `${pen ? 'L' : 'M'}${num(cx(ci))} ${num(sy(v))} `;
      pen = true;
    });
    // Dash patterns keep series apart where their lines coincide.
    const dash = ['', ' stroke-dasharray="7 4"', ' stroke-dasharray="2 3"'][si % 3];
    if (path) parts.push(`<path d="${path.trim()}" fill="none" stroke="${colour(si)}" stroke-width="2"${dash}/>`);
    vals.forEach((v, ci) => {
      if (v === null) return;
      parts.push(
        `<circle cx="${num(cx(ci))}" cy="${num(sy(v))}" r="3" ` +
          `fill="${colour(si)}"><title>${escapeXml(`${s.name} · ${cats[ci]}: ${formatTick(v)}`)}</title></circle>`,
      );
    });
  });
  return parts;
}

/** One box plot per series and category: whiskers at min and max, box from q1 to q3, median line, mean dot. */
function boxMarks(p: PlotArea): string[] {
  const { chart, t, colour, left, band, sy } = p;
  const parts: string[] = [];
  const cats = chart.categories;
  const nSeries = chart.series.length;
  const group = band * 0.7;
  const bw = group / Math.max(1, nSeries);
  chart.series.forEach((s, si) => {
    (s.boxes ?? []).forEach((b: BoxStats | null, ci) => {
      if (!b) return;
      const c = nSeries === 1 ? colour(ci) : colour(si);
      const x = left + band * ci + (band - group) / 2 + bw * si;
      const w = Math.min(140, Math.max(4, bw - 4));
      const mid = x + bw / 2;
      const tip =
        `${s.name} · ${cats[ci]}: min ${formatTick(b.min)}, q1 ${formatTick(b.q1)}, median ${formatTick(b.median)}, q3 ` +
        `${formatTick(b.q3)}, max ${formatTick(b.max)}, n ${b.n}`;
      parts.push(`<g><title>${escapeXml(tip)}</title>`);
      parts.push(
        `<line x1="${num(mid)}" x2="${num(mid)}" y1="${num(sy(b.max))}" y2="${num(sy(b.q3))}" stroke="${t.fg}"/>`,
      );
      parts.push(
        `<line x1="${num(mid)}" x2="${num(mid)}" y1="${num(sy(b.q1))}" y2="${num(sy(b.min))}" stroke="${t.fg}"/>`,
      );
      parts.push(
        `<line x1="${num(mid - w / 4)}" x2="${num(mid + w / 4)}" y1="${num(sy(b.max))}" y2="${num(sy(b.max))}" stroke="${t.fg}"/>`,
      );
      parts.push(
        `<line x1="${num(mid - w / 4)}" x2="${num(mid + w / 4)}" y1="${num(sy(b.min))}" y2="${num(sy(b.min))}" stroke="${t.fg}"/>`,
      );
      const top3 = sy(b.q3);
      parts.push(
        `<rect x="${num(mid - w / 2)}" y="${num(top3)}" width="${num(w)}" ` +
          `height="${num(Math.max(1, sy(b.q1) - top3))}" fill="${c}" fill-opacity="0.55" stroke="${c}"/>`,
      );
      parts.push(
        `<line x1="${num(mid - w / 2)}" x2="${num(mid + w / 2)}" y1="${num(sy(b.median))}" y2="${num(sy(b.median))}" stroke="${t.fg}" stroke-width="2"/>`,
      );
      if (b.mean !== undefined)
        parts.push(`<circle cx="${num(mid)}" cy="${num(sy(b.mean))}" r="2.5" fill="${t.bg}" stroke="${t.fg}"/>`);
      parts.push('</g>');
    });
  });
  return parts;
}

/** Dashed horizontal reference lines with their labels right of the plot. */
function referenceLines(p: PlotArea): string[] {
  const { chart, t, left, plotW, yMin, yMax, sy } = p;
  const parts: string[] = [];
  for (const r of chart.references ?? []) {
    if (r.value < yMin || r.value > yMax) continue;
    const py = sy(r.value);
    parts.push(
      `<line x1="${num(left)}" x2="${num(left + plotW)}" y1="${num(py)}" y2="${num(py)}" stroke="${t.ref}" stroke-dasharray="5 4" stroke-width="1.2"/>`,
    );
    parts.push(
      `<text x="${num(left + plotW + 4)}" y="${num(py + 4)}" font-size="10" fill="${t.ref}">${escapeXml(truncate(r.label, 24))}</text>`,
    );
  }
  return parts;
}

/** Renders one chart section as a standalone SVG document. */
export function renderChartSvg(chart: ChartSection, opts: SvgOptions = {}): string {
  const W = opts.width ?? 760;
  const H = opts.height ?? 420;
  const t = THEMES[opts.theme ?? 'light'];
  const parts: string[] = [];
  const colour = (i: number) => PALETTE[i % PALETTE.length];

  // Title and legend (wrapped into rows).
  let y = 24;
  parts.push(
    `<text x="${W / 2}" y="${y}" text-anchor="middle" font-size="15" font-weight="600" fill="${t.fg}">${escapeXml(truncate(chart.title, 110))}</text>`,
  );
  y += 10;
  const legendItems =
    chart.chart === 'box' && chart.series.length === 1
      ? []
      : chart.series.map((s, i) => ({ name: truncate(s.name, 40), colour: colour(i) }));
  if (legendItems.length) {
    let x = 16;
    y += 16;
    for (const item of legendItems) {
      const w = 16 + textWidth(item.name, 11) + 18;
      if (x + w > W - 16 && x > 16) {
        x = 16;
        y += 18;
      }
      parts.push(`<rect x="${num(x)}" y="${y - 9}" width="10" height="10" rx="2" fill="${item.colour}"/>`);
      parts.push(`<text x="${num(x + 14)}" y="${y}" font-size="11" fill="${t.fg}">${escapeXml(item.name)}</text>`);
      x += w;
    }
  }

  // Scales.
  const [lo, hi] = yExtent(chart);
  const ticks = niceTicks(lo, hi, 5);
  const yMin = Math.min(ticks[0], lo);
  const yMax = Math.max(ticks[ticks.length - 1], hi);
  const tickLabels = ticks.map(formatTick);
  const cats = chart.categories;
  const maxCat = Math.max(0, ...cats.map((c) => truncate(c, 24).length));
  const band0 = (W - 80) / Math.max(1, cats.length);
  const rotate = cats.length > 0 && maxCat * 11 * 0.58 > band0 - 4;
  const catHeight = rotate ? Math.min(150, maxCat * 11 * 0.58 * 0.66 + 14) : 18;
  const left = 20 + Math.max(...tickLabels.map((l) => textWidth(l, 11))) + (chart.yLabel ? 18 : 4);
  const right =
    16 + Math.max(0, ...(chart.references ?? []).map((r) => Math.min(textWidth(truncate(r.label, 24), 10), 120)));
  const top = y + 14;
  const bottom = H - 14 - catHeight - (chart.xLabel ? 18 : 0);
  const plotW = W - left - right;
  const plotH = Math.max(40, bottom - top);
  const sy = (v: number) => top + plotH - ((v - yMin) / (yMax - yMin || 1)) * plotH;
  const band = plotW / Math.max(1, cats.length);
  const cx = (i: number) => left + band * (i + 0.5);

  // Grid and y axis.
  ticks.forEach((v, i) => {
    const py = sy(v);
    parts.push(
      `<line x1="${num(left)}" x2="${num(left + plotW)}" y1="${num(py)}" y2="${num(py)}" stroke="${t.grid}" stroke-width="1"/>`,
    );
    parts.push(
      `<text x="${num(left - 6)}" y="${num(py + 4)}" text-anchor="end" font-size="11" fill="${t.muted}">${escapeXml(tickLabels[i])}</text>`,
    );
  });
  parts.push(
    `<line x1="${num(left)}" x2="${num(left)}" y1="${num(top)}" y2="${num(top + plotH)}" stroke="${t.axis}"/>`,
  );
  const zeroY = sy(yMin <= 0 && yMax >= 0 ? 0 : yMin);
  parts.push(
    `<line x1="${num(left)}" x2="${num(left + plotW)}" y1="${num(zeroY)}" y2="${num(zeroY)}" stroke="${t.axis}"/>`,
  );
  if (chart.yLabel) {
    const my = top + plotH / 2;
    parts.push(
      `<text x="14" y="${num(my)}" transform="rotate(-90 14 ${num(my)})" text-anchor="middle" font-size="11" ` +
        `fill="${t.muted}">${escapeXml(truncate(chart.yLabel, 60))}</text>`,
    );
  }

  const plot: PlotArea = { chart, t, colour, left, top, plotW, plotH, yMin, yMax, band, sy, cx };
  parts.push(...categoryLabels(plot, rotate, H));

  const marks = chart.chart === 'bar' ? barMarks : chart.chart === 'line' ? lineMarks : boxMarks;
  parts.push(...marks(plot));
  parts.push(...referenceLines(plot));

  const desc = chart.caption ? `<desc>${escapeXml(chart.caption)}</desc>` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" font-family="${FONT}">` +
    `<title>${escapeXml(chart.title)}</title>${desc}` +
    `<rect width="${W}" height="${H}" fill="${t.bg}"/>` +
    parts.join('') +
    '</svg>\n'
  );
}
