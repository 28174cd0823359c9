// The charts as a reviewer reads them, checked in their Vega-Lite specs (the source of every SVG
// and PNG): one colour scale for every chart, legends that list only what is drawn, natural order,
// whole-number token ticks, the headline cost chart with its savings, and success-vs-cost only where
// success is checked. From real simulated sweeps, run through the CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSvg } from '../src/report/render/chart-images.ts';
import { reflectionChart } from '../src/report/charts/loops.ts';
import { configColours } from '../src/report/charts/colours.ts';
import type { StabilityRow } from '../src/report/stats/reflection.ts';
import { benchInProcess } from './helpers/cli.ts';
import { QUICK_SUM } from './gate-helpers.ts';

type Json = Record<string, unknown>;
let tmp: string;
const specs = new Map<string, Map<string, Json>>();

/** Every chart spec of a sweep, by name. */
function readSpecs(dir: string): Map<string, Json> {
  const charts = path.join(dir, 'charts');
  const names = fs.readdirSync(charts).filter((f) => f.endsWith('.vl.json'));
  return new Map(
    names.map((f) => [f.replace(/\.vl\.json$/, ''), JSON.parse(fs.readFileSync(path.join(charts, f), 'utf8')) as Json]),
  );
}

/** Every object under `node` (the spec tree) that has key `key`, with that key's value. */
function findAll(node: unknown, key: string, out: Json[] = []): Json[] {
  if (Array.isArray(node)) for (const n of node) findAll(n, key, out);
  else if (node && typeof node === 'object') {
    const o = node as Json;
    if (key in o) out.push(o[key] as Json);
    for (const v of Object.values(o)) findAll(v, key, out);
  }
  return out;
}

const configColoursOf = (spec: Json) =>
  findAll(spec, 'color').filter((c) => c && typeof c === 'object' && (c.field === 'config' || c.field === 'series'));
const rows = (spec: Json) => (spec.data as { values: Json[] }).values;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-charts-'));
  const sweeps: Record<string, string[]> = {
    // Planned order: quick-sum (the tiny agent's task, its tool scripted) first. Its limits never bind
    // (it answers by step 4): four identical lines.
    both: ['--scenario', `${QUICK_SUM},seed-calibrated`, '--steps', '30,4,8,12', '-n', '3'],
    unchecked: ['--scenario', 'seed-calibrated', '--steps', '5,40', '-n', '2'],
    // Reflection and context charts: reflection does not change what a context strategy sends.
    loops: [
      '--scenario',
      'seed-calibrated',
      '--steps',
      '6',
      '--context',
      'full,window:2',
      '--reflection',
      'off,final',
      '-n',
      '2',
    ],
  };
  for (const [name, args] of Object.entries(sweeps)) {
    const dir = path.join(tmp, name);
    const r = await benchInProcess([...args, '--out', dir, '-q', '--no-transcripts']);
    expect(r.code, r.stderr).toBe(0);
    specs.set(name, readSpecs(dir));
  }
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('chart colours and legends', () => {
  it('colours a configuration the same in every chart: one scale, in natural order, shared by every chart that colours by configuration', () => {
    const all = specs.get('both')!;
    const scales = [...all.entries()].flatMap(([name, spec]) =>
      configColoursOf(spec).map((c) => ({ name, scale: c.scale as Json })),
    );
    expect(new Set(scales.map((s) => s.name))).toEqual(
      new Set([
        'mean-cost',
        'cumulative-input-tokens',
        'cumulative-cost',
        'input-tokens-per-call',
        'cost-per-run',
        'success-vs-cost',
      ]),
    );
    const first = scales[0]!.scale;
    expect(first.domain).toEqual(['steps=4', 'steps=8', 'steps=12', 'steps=30']);
    for (const s of scales) expect(s.scale, s.name).toEqual(first);
    // steps=30 is one colour, named the same, in both scenario panels and in every chart.
    expect(new Set((first.range as string[]).map((c) => c.toLowerCase())).size).toBe(4);
  });

  it('gives the reflection and context charts the same scale, and the context chart every configuration, a covered curve dashed', () => {
    const all = specs.get('loops')!;
    const scales = [...all.entries()].flatMap(([name, spec]) =>
      configColoursOf(spec).map((c) => ({ name, scale: c.scale })),
    );
    expect(new Set(scales.map((s) => s.name))).toEqual(
      new Set([
        'mean-cost',
        'cumulative-input-tokens',
        'cumulative-cost',
        'input-tokens-per-call',
        'cost-per-run',
        'reflection-cost',
        'context-cumulative-input',
      ]),
    );
    for (const s of scales) expect(s.scale, s.name).toEqual(scales[0]!.scale);
    const context = all.get('context-cumulative-input')!;
    const drawn = [
      ...new Set(
        rows(context)
          .filter((r) => r.kind === 'measured')
          .map((r) => r.series as string),
      ),
    ];
    // Reflection does not change what a context strategy sends: four configurations, two curves, all four drawn and named.
    expect(drawn.sort()).toEqual([
      'steps=6 reflection=final context=full',
      'steps=6 reflection=final context=window:2',
      'steps=6 reflection=off context=full',
      'steps=6 reflection=off context=window:2',
    ]);
    for (const c of configColoursOf(context)) expect((c.legend as Json).values).toEqual(drawn);
    const dash = findAll(context, 'strokeDash').find((d) => d && (d as Json).field === 'series') as Json;
    const { domain, range } = dash.scale as { domain: string[]; range: number[][] };
    const solid = domain.filter((_, i) => JSON.stringify(range[i]) === '[1,0]');
    expect(solid).toEqual(['steps=6 reflection=off context=full', 'steps=6 reflection=off context=window:2']);
  });

  it('draws every configuration, a line another covers dashed over it, and names each in the legend', () => {
    for (const name of ['cumulative-input-tokens', 'cumulative-cost', 'input-tokens-per-call']) {
      const spec = specs.get('both')!.get(name)!;
      const drawn = rows(spec).filter((r) => r.kind === 'measured');
      // quick-sum answers by step 4 under every limit: four configurations on one curve, all four drawn.
      expect(new Set(drawn.filter((r) => r.scenario === 'quick-sum').map((r) => r.config)), name).toEqual(
        new Set(['steps=4', 'steps=8', 'steps=12', 'steps=30']),
      );
      expect(new Set(drawn.filter((r) => r.scenario === 'seed-calibrated').map((r) => r.config)), name).toEqual(
        new Set(['steps=4', 'steps=8', 'steps=12', 'steps=30']),
      );
      expect(
        rows(spec)
          .filter((r) => r.kind === 'end' && r.scenario === 'seed-calibrated')
          .map((r) => r.configs),
        name,
      ).toEqual(['steps=4', 'steps=8', 'steps=12', 'steps=30']);
      expect(
        configColoursOf(spec).map((c) => (c.legend as Json).values),
        name,
      ).toEqual([['steps=4', 'steps=8', 'steps=12', 'steps=30']]);
      // The highest limit solid and drawn first; each covered line its own dashes, so every one shows a stretch of each period.
      const dash = findAll(spec, 'strokeDash').find((d) => d && (d as Json).field === 'config') as Json;
      const { domain, range } = dash.scale as { domain: string[]; range: number[][] };
      expect(Object.fromEntries(domain.map((d, i) => [d, range[i]])), name).toEqual({
        'steps=30': [1, 0],
        'steps=12': [12, 4],
        'steps=8': [8, 8],
        'steps=4': [4, 12],
      });
      expect([...new Set(drawn.map((r) => r.config))], name).toEqual(['steps=30', 'steps=12', 'steps=8', 'steps=4']);
    }
    // Configurations at the same point: each a ring of its own, the widest first, one label naming them all.
    const success = specs.get('both')!.get('success-vs-cost')!;
    const points = rows(success).filter((r) => r.kind !== 'reach');
    expect(points.map((r) => [r.config, r.size])).toEqual([
      ['steps=4', 600],
      ['steps=8', 430],
      ['steps=12', 260],
      ['steps=30', 90],
    ]);
    expect(points.filter((r) => r.label !== '').map((r) => r.label)).toEqual(['steps=4, steps=8, steps=12, steps=30']);
    for (const c of configColoursOf(success))
      expect((c.legend as Json).values).toEqual(['steps=4', 'steps=8', 'steps=12', 'steps=30']);
  });

  it('puts scenario panels in the planned order and configurations in natural order', () => {
    for (const [name, spec] of specs.get('both')!) {
      for (const facet of findAll(spec, 'facet'))
        expect((facet.row as Json).sort, name).toEqual(
          name === 'success-vs-cost' ? ['quick-sum'] : ['quick-sum', 'seed-calibrated'],
        );
    }
    const bars = specs.get('both')!.get('mean-cost')!;
    const y = findAll(bars, 'y').find((e) => e && (e as Json).field === 'config') as Json;
    expect(y.sort).toEqual(['steps=4', 'steps=8', 'steps=12', 'steps=30']);
  });

  it('prints token ticks whole (no "0k" or "0.2k") and runs as whole numbers', async () => {
    const all = specs.get('both')!;
    for (const [name, spec] of all) expect(JSON.stringify(spec), name).not.toContain('~s');
    for (const name of ['cumulative-input-tokens', 'input-tokens-per-call', 'stop-reasons']) {
      const svg = await toSvg(all.get(name)! as never);
      const ticks = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
      expect(
        ticks.filter((t) => /^\d+(\.\d+)?k$/.test(t)),
        name,
      ).toEqual([]);
      expect(
        ticks.filter((t) => /^\d+\.\d+$/.test(t)),
        name,
      ).toEqual([]);
    }
  });
});

describe('the reflection chart', () => {
  it('draws two modes that succeed equally as two pass^k lines, the one dashed over the other, in their own colours', async () => {
    const row = (reflection: string): StabilityRow =>
      ({
        config_id: `s reflection=${reflection}`,
        scenario: 's',
        reflection,
        runs: 3,
        successes: 3,
        success_rate: 1,
        pass_hat_k: [1, 1, 1],
        input_tokens_mean: 900,
        output_tokens_mean: 100,
        cost_usd_mean: 0.001,
      }) as StabilityRow;
    const rows = [row('off'), row('final')];
    const svg = await toSvg(
      reflectionChart(rows, configColours(rows.map((r) => ({ config_id: r.config_id, scenario: 's' })))).spec as never,
    );
    const lines = [
      ...svg.matchAll(
        /<path aria-label="[^"]*config: (reflection=\w+)[^"]*" role="graphics-symbol" aria-roledescription="line mark" d="([^"]+)" stroke="([^"]+)"[^>]*stroke-dasharray="([^"]+)"/g,
      ),
    ].map((m) => ({ config: m[1], d: m[2], stroke: m[3], dash: m[4] }));
    expect(lines.map((l) => l.config)).toEqual(['reflection=off', 'reflection=final']);
    expect(lines[0]!.d).toBe(lines[1]!.d);
    expect(lines[0]!.stroke).not.toBe(lines[1]!.stroke);
    // The one drawn first is solid; the one on top leaves gaps for it.
    expect(lines.map((l) => l.dash)).toEqual(['1,0', '4,4']);
  });
});

describe('the headline cost chart', () => {
  it('shows mean cost per run per configuration with its interval and its saving against the highest limit', () => {
    const bars = rows(specs.get('both')!.get('mean-cost')!).filter((r) => r.kind === 'bar');
    const seed = bars.filter((b) => b.scenario === 'seed-calibrated');
    // seed-calibrated checks no answer: one bar each, per run.
    expect(seed.map((b) => [b.config, b.measure])).toEqual([
      ['steps=4', 'per run'],
      ['steps=8', 'per run'],
      ['steps=12', 'per run'],
      ['steps=30', 'per run'],
    ]);
    for (const b of bars)
      expect((b.lo as number) <= (b.cost as number) && (b.cost as number) <= (b.hi as number)).toBe(true);
    const top = seed.find((b) => b.config === 'steps=30')!;
    expect(top.label).toMatch(/^\$0\.0\d+ · highest limit$/);
    const low = seed.find((b) => b.config === 'steps=12')!;
    const saved = Math.round((1 - (low.cost as number) / (top.cost as number)) * 100);
    expect(saved).toBeGreaterThan(70);
    expect(low.label).toBe(`$${(low.cost as number).toPrecision(2)} · −${saved}% vs steps=30`);
  });

  it('adds cost per successful task where the scenario checks its answer, and names which bar is which', () => {
    const bars = rows(specs.get('both')!.get('mean-cost')!).filter(
      (r) => r.kind === 'bar' && r.scenario === 'quick-sum',
    );
    expect(bars.map((b) => [b.config, b.measure])).toEqual(
      ['steps=4', 'steps=8', 'steps=12', 'steps=30'].flatMap((c) => [
        [c, 'per run'],
        [c, 'per successful task'],
      ]),
    );
    expect(bars.find((b) => b.measure === 'per successful task' && b.config === 'steps=4')!.label).toMatch(
      / per success · ±0% vs steps=30( · † no failure seen: up to \$[\d.]+)?$/,
    );
  });

  it('leaves each panel room for its longest label (the x axis reaches past it)', () => {
    const values = rows(specs.get('both')!.get('mean-cost')!);
    for (const reach of values.filter((r) => r.kind === 'reach')) {
      const mine = values.filter((r) => r.kind === 'bar' && r.scenario === reach.scenario);
      for (const b of mine) expect(reach.cost as number).toBeGreaterThan((b.label_at as number) * 1.2);
    }
  });
});

describe('success vs cost', () => {
  it('is left out when no scenario checks its answer', () => {
    expect([...specs.get('unchecked')!.keys()].sort()).toEqual([
      'cost-per-run',
      'cumulative-cost',
      'cumulative-input-tokens',
      'input-tokens-per-call',
      'mean-cost',
      'stop-reasons',
    ]);
  });

  it('places each configuration at its cost per successful task where there is a check', () => {
    const spec = specs.get('both')!.get('success-vs-cost')!;
    const x = findAll(spec, 'x').find((e) => e && (e as Json).field === 'cost') as Json;
    expect(x.title).toBe('cost per successful task (USD)');
    const mean = rows(specs.get('both')!.get('mean-cost')!).find(
      (r) => r.scenario === 'quick-sum' && r.config === 'steps=30' && r.measure === 'per successful task',
    )!;
    expect(rows(spec).find((r) => r.config === 'steps=30')!.cost).toBe(mean.cost);
  });
});
