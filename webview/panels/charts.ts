/**
 * chart.js drawing of report charts, themed from VS Code's CSS variables.
 *
 * chart.js draws on a canvas, which cannot read CSS variables, so the colours are read from the
 * computed style when a chart is created and again when the theme changes (`retheme`). Box plots
 * are not built into chart.js: they are drawn by a small plugin over invisible floating bars
 * [min, max] (the bars give the layout, grouping and tooltips). Two more plugins draw the
 * horizontal reference lines and paint the background, so exported PNGs are not transparent.
 */
import type * as ChartJs from 'chart.js' with { 'resolution-mode': 'import' };
import type { Chart, ChartConfiguration, Plugin, Scale } from 'chart.js' with { 'resolution-mode': 'import' };
import { type BoxStats, type ChartSection, formatTick } from '../../src/shared/report';
import type { ChartMount } from './render';

// chart.js ships as an ES module; it is loaded with import() (bundled by esbuild) so this file
// type-checks as the CommonJS the rest of the project compiles to.
let lib: typeof ChartJs | undefined;

/** Loads and registers the chart.js parts the panels use (bars, lines, category/linear scales). */
export async function loadCharts(): Promise<void> {
  if (lib) return;
  const m = await import('chart.js');
  m.Chart.register(
    m.BarController,
    m.BarElement,
    m.LineController,
    m.LineElement,
    m.PointElement,
    m.CategoryScale,
    m.LinearScale,
    m.Legend,
    m.Tooltip,
  );
  lib = m;
}

/** Colours for charts, read from the theme. */
interface ChartTheme {
  fg: string;
  muted: string;
  grid: string;
  bg: string;
  ref: string;
  font: string;
  palette: string[];
}

const FALLBACK_PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#b07aa1',
  '#edc948',
  '#76b7b2',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];
const THEME_PALETTE = [
  '--vscode-charts-blue',
  '--vscode-charts-orange',
  '--vscode-charts-green',
  '--vscode-charts-red',
  '--vscode-charts-purple',
  '--vscode-charts-yellow',
];

/** Reads the current theme's colours from CSS variables (with fallbacks outside VS Code). */
function readTheme(): ChartTheme {
  const cs = getComputedStyle(document.body);
  const v = (name: string, fallback: string) => cs.getPropertyValue(name).trim() || fallback;
  const palette = THEME_PALETTE.map((n, i) => v(n, FALLBACK_PALETTE[i]));
  // After the six theme colours, continue with the fixed palette (they differ from the theme's).
  palette.push(...FALLBACK_PALETTE.slice(6));
  return {
    fg: v('--vscode-foreground', '#333333'),
    muted: v('--vscode-descriptionForeground', '#717171'),
    grid: v('--vscode-editorWidget-border', v('--vscode-panel-border', 'rgba(128,128,128,0.35)')),
    bg: v('--vscode-editor-background', '#ffffff'),
    ref: v('--vscode-errorForeground', '#c42b1c'),
    font: v('--vscode-font-family', 'system-ui, sans-serif'),
    palette,
  };
}

/** A colour with alpha, from #rgb/#rrggbb (other syntaxes are returned unchanged). */
function withAlpha(colour: string, alpha: number): string {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim());
  if (!m) return colour;
  const hex =
    m[1].length === 3
      ? m[1]
          .split('')
          .map((c) => c + c)
          .join('')
      : m[1];
  const n = parseInt(hex, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

const boxesOf = new WeakMap<Chart, (BoxStats | null)[][]>();
const sectionOf = new WeakMap<Chart, ChartSection>();
const themeOf = new WeakMap<Chart, ChartTheme>();

const backgroundPlugin: Plugin = {
  id: 'simlensBackground',
  beforeDraw(chart) {
    const t = themeOf.get(chart);
    if (!t) return;
    const ctx = chart.ctx;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = t.bg;
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

/** A plugin that draws over the datasets with the chart's theme and y scale, between ctx.save() and restore(). */
function overlayPlugin(
  id: string,
  draw: (chart: Chart, t: ChartTheme, y: Scale, ctx: CanvasRenderingContext2D) => void,
): Plugin {
  return {
    id,
    afterDatasetsDraw(chart) {
      const t = themeOf.get(chart);
      const y = chart.scales.y;
      if (!t || !y) return;
      chart.ctx.save();
      draw(chart, t, y, chart.ctx);
      chart.ctx.restore();
    },
  };
}

const referencePlugin = overlayPlugin('simlensReferences', (chart, t, y, ctx) => {
  const references = sectionOf.get(chart)?.references ?? [];
  const area = chart.chartArea;
  for (const r of references) {
    if (r.value < y.min || r.value > y.max) continue;
    const py = y.getPixelForValue(r.value);
    ctx.strokeStyle = t.ref;
    ctx.setLineDash([5, 4]);
    ctx.lineWidth = 1.2;
    ctx.beginPath();
    ctx.moveTo(area.left, py);
    ctx.lineTo(area.right, py);
    ctx.stroke();
    ctx.setLineDash([]);
    // The label sits on a patch of background so bars under it do not garble it.
    ctx.font = `11px ${t.font}`;
    ctx.textAlign = 'right';
    const w = ctx.measureText(r.label).width;
    ctx.fillStyle = t.bg;
    ctx.globalAlpha = 0.85;
    ctx.fillRect(area.right - w - 8, py - 16, w + 6, 13);
    ctx.globalAlpha = 1;
    ctx.fillStyle = t.ref;
    ctx.fillText(r.label, area.right - 4, py - 5);
  }
});

const boxPlugin = overlayPlugin('simlensBox', (chart, t, y, ctx) => {
  const boxes = boxesOf.get(chart);
  if (!boxes) return;
  chart.data.datasets.forEach((ds, di) => {
    const meta = chart.getDatasetMeta(di);
    if (meta.hidden) return;
    meta.data.forEach((el, i) => {
      const b = boxes[di]?.[i];
      if (!b) return;
      const { x, width } = el.getProps(['x', 'width'], true) as { x: number; width: number };
      const w = Math.min(140, Math.max(6, width * 0.8));
      const colour = (Array.isArray(ds.borderColor) ? ds.borderColor[i] : ds.borderColor) as string;
      const py = (v: number) => y.getPixelForValue(v);
      ctx.strokeStyle = t.fg;
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, py(b.max));
      ctx.lineTo(x, py(b.q3));
      ctx.moveTo(x, py(b.q1));
      ctx.lineTo(x, py(b.min));
      ctx.moveTo(x - w / 4, py(b.max));
      ctx.lineTo(x + w / 4, py(b.max));
      ctx.moveTo(x - w / 4, py(b.min));
      ctx.lineTo(x + w / 4, py(b.min));
      ctx.stroke();
      const top = py(b.q3);
      const h = Math.max(1, py(b.q1) - top);
      ctx.fillStyle = withAlpha(colour, 0.55);
      ctx.fillRect(x - w / 2, top, w, h);
      ctx.strokeStyle = colour;
      ctx.strokeRect(x - w / 2, top, w, h);
      ctx.strokeStyle = t.fg;
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x - w / 2, py(b.median));
      ctx.lineTo(x + w / 2, py(b.median));
      ctx.stroke();
      if (b.mean !== undefined) {
        ctx.lineWidth = 1;
        ctx.fillStyle = t.bg;
        ctx.beginPath();
        ctx.arc(x, py(b.mean), 3, 0, Math.PI * 2);
        ctx.fill();
        ctx.stroke();
      }
    });
  });
});

/**
 * The colour of a series is chosen by its name, the same in every chart of a report (a population
 * keeps its colour whether a chart lists it first or second); reset for each report with the
 * report's inputs in order, so the reference is always the first colour.
 */
let seriesColours = new Map<string, number>();

export function resetSeriesColours(names: readonly string[]): void {
  seriesColours = new Map();
  for (const n of names) if (!seriesColours.has(n)) seriesColours.set(n, seriesColours.size);
}

/** The palette index of a series name (a new name takes the next free one). */
function seriesColourIndex(name: string): number {
  let i = seriesColours.get(name);
  if (i === undefined) seriesColours.set(name, (i = seriesColours.size));
  return i;
}

/** The chart.js configuration of a chart section (exported for tests). */
export function chartConfig(section: ChartSection, t: ChartTheme): ChartConfiguration {
  return config(section, t);
}

function config(section: ChartSection, t: ChartTheme): ChartConfiguration {
  const colourOf = (i: number) => t.palette[i % t.palette.length];
  const isBox = section.chart === 'box';
  const oneBoxSeries = isBox && section.series.length === 1;
  const byName = section.series.map((s) => seriesColourIndex(s.name));
  const colour = (si: number) => colourOf(byName[si]);
  const datasets = section.series.map((s, si) => {
    if (isBox) {
      // One series of boxes: one box per category (population), each in that population's colour.
      const colours = section.categories.map((c) =>
        oneBoxSeries ? colourOf(seriesColourIndex(String(c))) : colour(si),
      );
      return {
        type: 'bar' as const,
        label: s.name,
        data: (s.boxes ?? []).map((b) => (b ? ([b.min, b.max] as [number, number]) : null)),
        backgroundColor: 'rgba(0,0,0,0)',
        borderColor: colours,
        borderWidth: 0,
      };
    }
    if (section.chart === 'line') {
      return {
        type: 'line' as const,
        label: s.name,
        data: s.values ?? [],
        borderColor: colour(si),
        backgroundColor: colour(si),
        borderDash: [[], [7, 4], [2, 3]][si % 3],
        pointRadius: 3,
        spanGaps: false,
        tension: 0,
      };
    }
    return {
      type: 'bar' as const,
      label: s.name,
      data: s.values ?? [],
      backgroundColor: colour(si),
      borderColor: colour(si),
      borderWidth: 0,
    };
  });
  const tick = { color: t.fg, font: { family: t.font, size: 11 } };
  const title = (text: string | undefined) =>
    text ? { display: true, text, color: t.muted, font: { family: t.font, size: 11 } } : { display: false };
  return {
    type: section.chart === 'line' ? 'line' : 'bar',
    data: { labels: section.categories, datasets } as ChartConfiguration['data'],
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      color: t.fg,
      font: { family: t.font },
      interaction: { mode: isBox ? 'nearest' : 'index', intersect: isBox },
      scales: {
        x: {
          ticks: { ...tick, autoSkip: false, maxRotation: 50 },
          grid: { color: t.grid, display: false },
          title: title(section.xLabel),
          border: { color: t.grid },
        },
        y: {
          ticks: { ...tick, callback: (v) => formatTick(Number(v)) },
          grid: { color: t.grid },
          border: { color: t.grid },
          title: title(section.yLabel),
          min: section.yMin,
          max: section.yMax,
          beginAtZero: !isBox,
        },
      },
      plugins: {
        // Line series show their point style in the legend (a dashed box would look broken).
        legend: {
          display: !oneBoxSeries,
          labels: {
            color: t.fg,
            font: { family: t.font, size: 11 },
            boxWidth: 12,
            usePointStyle: section.chart === 'line',
          },
        },
        tooltip: {
          callbacks: {
            label: (item) => {
              if (isBox) {
                const b = section.series[item.datasetIndex]?.boxes?.[item.dataIndex];
                return b
                  ? `${item.dataset.label}: median ${formatTick(b.median)} (q1 ${formatTick(b.q1)}, q3 ${formatTick(b.q3)}, min ` +
                      `${formatTick(b.min)}, max ${formatTick(b.max)}, n ${b.n})`
                  : '';
              }
              const v = item.parsed.y;
              return `${item.dataset.label}: ${v === null || v === undefined ? '–' : formatTick(v)}`;
            },
          },
        },
      },
    },
    plugins: [backgroundPlugin, referencePlugin, ...(isBox ? [boxPlugin] : [])],
  };
}

/**
 * Draws a chart section on a canvas. Returns undefined when the canvas has no 2D context (then
 * the caller shows the data table instead).
 */
export function mountChart(canvas: HTMLCanvasElement, section: ChartSection): ChartMount | undefined {
  if (!lib || !canvas.getContext('2d')) return undefined;
  const ChartClass = lib.Chart;
  let theme = readTheme();
  const make = () => {
    const c = new ChartClass(canvas, config(section, theme));
    sectionOf.set(c, section);
    themeOf.set(c, theme);
    if (section.chart === 'box')
      boxesOf.set(
        c,
        section.series.map((s) => s.boxes ?? []),
      );
    return c;
  };
  let chart = make();
  return {
    toPng: () => chart.toBase64Image('image/png', 1),
    retheme: () => {
      theme = readTheme();
      chart.destroy();
      chart = make();
    },
    destroy: () => chart.destroy(),
  };
}
