/**
 * A population keeps one colour in every chart of a report (issue 26: the DS-KL bar chart lists the
 * simulated population first and the reference second, and the colours swapped meaning).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartConfig, resetSeriesColours } from '../../../webview/panels/charts';
import type { ChartSection } from '../../../src/shared/report';

const theme = {
  palette: ['#111111', '#222222', '#333333', '#444444'],
  fg: '#000',
  muted: '#555',
  grid: '#ccc',
  bg: '#fff',
  font: 'sans-serif',
};

function section(series: string[], chart: 'bar' | 'line' | 'box' = 'bar'): ChartSection {
  return {
    type: 'chart',
    id: series.join('-'),
    title: 't',
    chart,
    categories: ['a', 'b'],
    series: series.map((name) => ({ name, values: [1, 2] })),
  } as ChartSection;
}

test('series colours follow the name, not the position, across the charts of a report', () => {
  resetSeriesColours(['human.jsonl', 'sim.jsonl', 'icl.jsonl']);
  const colourOf = (s: ChartSection, name: string) => {
    const ds = (chartConfig(s, theme as never).data.datasets as { label: string; backgroundColor: string }[]).find(
      (d) => d.label === name,
    )!;
    return ds.backgroundColor;
  };
  const distribution = section(['human.jsonl', 'sim.jsonl', 'icl.jsonl']);
  const dskl = section(['sim.jsonl', 'human.jsonl']); // the DS-KL chart: candidate first
  const line = section(['icl.jsonl', 'human.jsonl'], 'line');
  for (const name of ['human.jsonl', 'sim.jsonl', 'icl.jsonl']) {
    const seen = new Set(
      [distribution, dskl, line].filter((s) => s.series.some((x) => x.name === name)).map((s) => colourOf(s, name)),
    );
    assert.equal(seen.size, 1, `${name} has ${seen.size} colours`);
  }
  assert.equal(colourOf(dskl, 'human.jsonl'), '#111111', 'the reference is the first colour');
  assert.equal(colourOf(dskl, 'sim.jsonl'), '#222222');
  // Another report starts over from its own inputs.
  resetSeriesColours(['sim.jsonl']);
  assert.equal(colourOf(section(['human.jsonl', 'sim.jsonl']), 'sim.jsonl'), '#111111');
});
