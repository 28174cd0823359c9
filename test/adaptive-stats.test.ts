// The decision statistics of adaptive repeats on known data, the exact error rates of the
// group-sequential boundaries, the design comparison the README states, and the error rates of the
// whole procedure simulated on seeded draws.
import { describe, expect, it } from 'vitest';
import { decideBudgets, sampling } from '../src/gate/adaptive.ts';
import { evaluateAssertions } from '../src/gate/assertions.ts';
import {
  countBoundaries,
  crossingProbabilities,
  meanBounds,
  pocockSpending,
  sequentialDesign,
  type CountBoundaries,
} from '../src/gate/decision-stats.ts';
import { binomialPmf, wilson } from '../src/stats/binomial.ts';
import { studentTQuantile } from '../src/stats/student-t.ts';
import type { RunRecord } from '../src/contracts/records.ts';
import { normal, rng } from '../src/sim/rng.ts';

const run = (i: number, over: Partial<RunRecord>): RunRecord =>
  ({
    run_id: `s_r${String(i).padStart(3, '0')}`,
    scenario: 's',
    stop_reason: 'done',
    steps: 4,
    calls: 4,
    input_tokens: 1000,
    output_tokens: 200,
    cost_usd: 0.001,
    success: true,
    ...over,
  }) as RunRecord;
const sum = (xs: readonly number[]) => xs.reduce((a, x) => a + x, 0);
const R = { min: 10, max: 100, batch: 10, confidence: 0.95 };

describe('decision statistics on known values', () => {
  it('Student t quantiles match the tables', () => {
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157, 5);
    expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.604095, 5);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.962339, 4);
  });

  it('binomial probabilities and one-sided t bounds on textbook data', () => {
    expect(binomialPmf(10, 0.5)[3]).toBeCloseTo(120 / 1024, 12);
    expect(sum([...binomialPmf(10, 0.5).slice(0, 4)])).toBeCloseTo(176 / 1024, 12);
    expect(binomialPmf(10, 0.95)[10]).toBeCloseTo(0.95 ** 10, 12);
    expect(sum([...binomialPmf(2000, 0.9)])).toBeCloseTo(1, 9);
    expect([...binomialPmf(3, 1)]).toEqual([0, 0, 0, 1]);
    // 1..10: mean 5.5, s = 3.0277, t(0.975, 9) = 2.2622 → 5.5 ± 2.1659, each side at 97.5 %.
    const m = meanBounds([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.025);
    expect(m.lo).toBeCloseTo(3.3341, 3);
    expect(m.hi).toBeCloseTo(7.6659, 3);
    expect(meanBounds([5], 0.025)).toEqual({ lo: -Infinity, hi: Infinity });
  });

  it('plans ceil((max − min) / batch) + 1 looks and spends α over them as α·ln(1 + (e − 1)·n/max)', () => {
    const d = sequentialDesign(R);
    expect(d.looks).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(d.spent[0]).toBeCloseTo(0.05 * Math.log(1 + (Math.E - 1) * 0.1), 15);
    expect(d.spent[0]).toBeCloseTo(0.00793, 5);
    expect(d.spent[3]).toBeCloseTo(0.02616, 5);
    expect(d.alpha).toBeCloseTo(0.05, 15);
    expect(d.spent.at(-1)).toBe(d.alpha);
    expect(sum(d.lookAlpha)).toBeCloseTo(0.05, 15);
    expect(sequentialDesign({ min: 10, max: 35, batch: 10, confidence: 0.9 }).looks).toEqual([10, 20, 30, 35]);
    const one = sequentialDesign({ min: 40, max: 40, batch: 10, confidence: 0.95 });
    expect(one).toMatchObject({ looks: [40], spent: [one.alpha], lookAlpha: [one.alpha] });
    expect(sequentialDesign(R)).toBe(d);
  });
});

describe('exact group-sequential boundaries', () => {
  it('one look is the exact one-sided binomial test: 40/40 passes a 0.9 bar, a p95 needs 59 runs with none above the limit', () => {
    expect(countBoundaries(0.9, [40], [0.05]).pass).toEqual([40]); // 0.9^40 = 1.5 % ≤ 5 %; 39 or more: 8.0 %
    const fail = countBoundaries(0.9, [40], [0.05]).fail[0]!;
    expect(sum([...binomialPmf(40, 0.9).slice(0, fail + 1)])).toBeLessThanOrEqual(0.05);
    expect(sum([...binomialPmf(40, 0.9).slice(0, fail + 2)])).toBeGreaterThan(0.05);
    // 0.95^59 = 4.85 % ≤ 5 % < 0.95^58 = 5.10 %: 58 runs cannot show a p95 holds (pass > n: no count reaches it).
    expect(countBoundaries(0.95, [59], [0.05]).pass).toEqual([59]);
    expect(countBoundaries(0.95, [58], [0.05]).pass).toEqual([59]);
  });

  it('the walk over the looks agrees with enumerating every path of a small design', () => {
    const looks = [3, 6, 9, 12];
    const b = countBoundaries(
      0.7,
      looks,
      looks.map((n) => pocockSpending(0.2, n / 12)),
    );
    for (const p of [0.5, 0.7, 0.9]) {
      const exact = { pass: looks.map(() => 0), fail: looks.map(() => 0) };
      for (let path = 0; path < 1 << 12; path++) {
        let count = 0;
        let prob = 1;
        for (let i = 0; i < 12; i++) {
          const hit = (path >> i) & 1;
          count += hit;
          prob *= hit ? p : 1 - p;
        }
        for (const [k, n] of looks.entries()) {
          let c = 0;
          for (let i = 0; i < n; i++) c += (path >> i) & 1;
          if (c >= b.pass[k]!) {
            exact.pass[k]! += prob;
            break;
          }
          if (c <= b.fail[k]!) {
            exact.fail[k]! += prob;
            break;
          }
        }
        expect(count).toBeLessThanOrEqual(12);
      }
      const walked = crossingProbabilities(p, looks, b);
      for (const k of looks.keys()) {
        expect(walked.pass[k]).toBeCloseTo(exact.pass[k]!, 12);
        expect(walked.fail[k]).toBeCloseTo(exact.fail[k]!, 12);
      }
    }
  });

  // The defining promise: exactly at the bar, each side's crossing probability over all looks ≤ 1 − c.
  const designs = [
    { min: 10, max: 100, batch: 10, confidence: 0.95 },
    { min: 5, max: 20, batch: 5, confidence: 0.95 },
    { min: 20, max: 300, batch: 20, confidence: 0.9 },
    { min: 2, max: 60, batch: 1, confidence: 0.99 },
    { min: 40, max: 40, batch: 10, confidence: 0.95 },
  ];
  for (const r of designs)
    it(`at the bar, passes and fails each at most 1 − c over all looks: ${r.min}..${r.max} by ${r.batch} at ${r.confidence}`, () => {
      const d = sequentialDesign(r);
      for (const bar of [0.5, 0.8, 0.9, 0.95, 0.99]) {
        const b = d.boundaries(bar);
        const at = crossingProbabilities(bar, d.looks, b);
        expect(sum(at.pass)).toBeLessThanOrEqual(d.alpha * (1 + 1e-12));
        expect(sum(at.fail)).toBeLessThanOrEqual(d.alpha * (1 + 1e-12));
        // Each look within what was spent by it (cumulative), on both sides.
        for (const k of d.looks.keys())
          expect(sum(at.pass.slice(0, k + 1))).toBeLessThanOrEqual(d.spent[k]! * (1 + 1e-12));
        // Below the bar passing is rarer still, above it failing is.
        expect(sum(crossingProbabilities(bar - 0.03, d.looks, b).pass)).toBeLessThanOrEqual(sum(at.pass));
        expect(sum(crossingProbabilities(Math.min(1, bar + 0.03), d.looks, b).fail)).toBeLessThanOrEqual(sum(at.fail));
      }
    });
});

// The README's design comparison (success rate ≥ 0.9, looks 10..100 by 10, 95 %): the expected runs
// and the pass rate at each true success rate, exactly from the boundaries.
describe('choosing the spending function', () => {
  const looks = sequentialDesign(R).looks;
  const alpha = 0.05;
  const hsd = (g: number) => (t: number) => (alpha * (1 - Math.exp(-g * t))) / (1 - Math.exp(-g));
  const byWilson = (z: number): CountBoundaries => ({
    pass: looks.map((n) => Array.from({ length: n + 2 }, (_, k) => k).find((k) => k > n || wilson(k, n, z).lo >= 0.9)!),
    fail: looks.map(
      (n) => Array.from({ length: n + 1 }, (_, k) => n - k).find((k) => k < 0 || wilson(k, n, z).hi < 0.9) ?? -1,
    ),
  });
  const spending = (f: (t: number) => number) =>
    countBoundaries(
      0.9,
      looks,
      looks.map((n, k) => (k === looks.length - 1 ? alpha : f(n / 100))),
    );
  const designs: Record<string, CountBoundaries> = {
    'fixed 40, Wilson 95 %': { pass: [40], fail: [-1] },
    'Bonferroni, two-sided Wilson at 99.5 % (before)': byWilson(2.807034),
    'Pocock-type α·ln(1 + (e − 1)t) (chosen)': spending((t) => pocockSpending(alpha, t)),
    "O'Brien–Fleming-like (Hwang–Shih–DeCani γ = −4)": spending(hsd(-4)),
    'front-loaded α·min(1, t / 0.3)': spending((t) => alpha * Math.min(1, t / 0.3)),
  };
  const table = Object.fromEntries(
    Object.entries(designs).map(([name, b]) => {
      const at = name.startsWith('fixed') ? [40] : looks;
      return [
        name,
        [1, 0.97, 0.95, 0.93, 0.9].map((p) => {
          const c = crossingProbabilities(p, at, b);
          const stops = at.map((_, k) => c.pass[k]! + c.fail[k]!);
          const runs = sum(at.map((n, k) => n * stops[k]!)) + at.at(-1)! * (1 - sum(stops));
          return `${runs.toFixed(0)} (${(sum(c.pass) * 100).toFixed(1)} %)`;
        }),
      ];
    }),
  );

  it('expected runs (pass rate) at true success rates 1.0, 0.97, 0.95, 0.93, 0.9 as the README states', () => {
    expect(table).toEqual({
      'fixed 40, Wilson 95 %': ['40 (100.0 %)', '40 (29.6 %)', '40 (12.9 %)', '40 (5.5 %)', '40 (1.5 %)'],
      'Bonferroni, two-sided Wilson at 99.5 % (before)': [
        '80 (100.0 %)',
        '97 (24.7 %)',
        '99 (5.8 %)',
        '99 (1.2 %)',
        '98 (0.1 %)',
      ],
      'Pocock-type α·ln(1 + (e − 1)t) (chosen)': [
        '40 (100.0 %)',
        '68 (84.8 %)',
        '84 (50.1 %)',
        '93 (22.2 %)',
        '96 (4.8 %)',
      ],
      "O'Brien–Fleming-like (Hwang–Shih–DeCani γ = −4)": [
        '50 (100.0 %)',
        '78 (83.3 %)',
        '91 (46.5 %)',
        '97 (18.7 %)',
        '99 (3.2 %)',
      ],
      'front-loaded α·min(1, t / 0.3)': ['30 (100.0 %)', '65 (63.3 %)', '82 (32.4 %)', '90 (15.3 %)', '93 (5.0 %)'],
    });
  });
});

describe('deciding budgets', () => {
  const d = sequentialDesign(R);
  it('decides a mean by its one-sided t bound at the look’s share of α, a count budget by the boundaries', () => {
    const runs = Array.from({ length: 20 }, (_, i) =>
      run(i, { input_tokens: 1000 + (i % 5) * 10, steps: 3 + (i % 2) }),
    );
    const by = (a: Parameters<typeof decideBudgets>[0], k = 1) => decideBudgets(a, runs, k, d).map((x) => x.decision);
    expect(by({ input_tokens: { mean: 1100 } })).toEqual(['pass']);
    expect(by({ input_tokens: { mean: 1000 } })).toEqual(['fail']);
    expect(by({ input_tokens: { mean: 1020 } })).toEqual(['open']);
    // p50 ≤ 4: all 20 within (the boundary at 20 runs, bar 0.5, is far below); p50 ≤ 2: none within.
    expect(by({ steps: { p50: 4 } })).toEqual(['pass']);
    expect(by({ steps: { p50: 2 } })).toEqual(['fail']);
    expect(decideBudgets({ steps: { p95: 100 } }, runs, 1, d)[0]).toMatchObject({
      decision: 'open',
      needs: 'steps p95 ≤ 100 can first be shown to hold at 70 runs',
    });
    expect(
      decideBudgets(
        { steps: { p95: 100 } },
        runs.slice(0, 5),
        0,
        sequentialDesign({ min: 5, max: 20, batch: 5, confidence: 0.95 }),
      )[0],
    ).toMatchObject({
      needs: 'steps p95 ≤ 100 cannot be shown to hold within 20 runs',
    });
    // Every-run budgets: one breaking run decides them; none does not hold sampling open.
    expect(by({ steps: { max: 4 }, stop_reason: ['done'] })).toEqual(['pass', 'pass']);
    expect(by({ steps: { max: 3 } })).toEqual(['fail']);
    // 20/20 successes: a 0.9 bar needs 21 at the look of 20 (cannot pass yet); 0 of 20 is decided below it.
    expect(d.boundaries(0.9).pass[1]).toBe(21);
    expect(by({ success_rate: { min: 0.9 } })).toEqual(['open']);
    expect(
      decideBudgets(
        { success_rate: { min: 0.9 } },
        runs.map((r) => ({ ...r, success: false })),
        1,
        d,
      )[0]!.decision,
    ).toBe('fail');
    expect(
      decideBudgets(
        { success_rate: { min: 0.9 } },
        runs.map((r) => ({ ...r, success: null })),
        1,
        d,
      )[0],
    ).toMatchObject({ decision: 'open', needs: 'runs without a success check cannot decide it' });
  });

  it('says how many runs it took and why it stopped; a decided budget stays decided', () => {
    const ok = Array.from({ length: 100 }, (_, i) => run(i, {}));
    expect(sampling('s', { success_rate: { min: 0.9 } }, ok, R)).toEqual({
      outcome: {
        scenario: 's',
        runs: 40,
        stopped: 'decided',
        reason: 'decided after 40 runs: success_rate ≥ 0.9 holds at 95 %',
        decided: new Map([['success_rate ≥ 0.9', { decision: 'pass', at: 40 }]]),
      },
    });
    expect(sampling('s', { success_rate: { min: 0.9 } }, ok.slice(0, 35), R)).toEqual({
      nextLook: 40,
      decided: new Map(),
    });
    const broken = ok.map((x, i) => (i === 3 ? { ...x, stop_reason: 'max_steps' as const } : x));
    expect(sampling('s', { stop_reason: ['done'], input_tokens: { mean: 5000 } }, broken, R)).toMatchObject({
      outcome: { runs: 10, reason: 'decided after 10 runs: stop_reason in [done] breached by a run' },
    });
    expect(sampling('s', { cost_usd: { p95: 0.0005 } }, ok, R)).toMatchObject({
      outcome: { runs: 10, reason: 'decided after 10 runs: cost_usd p95 ≤ $0.00050 breached at 95 %' },
    });
    expect(sampling('s', { cost_usd: { p95: 1 } }, ok, R)).toMatchObject({
      outcome: { runs: 70, reason: 'decided after 70 runs: cost_usd p95 ≤ $1.00 holds at 95 %' },
    });
    // The mean is decided at 10; the success rate at 40 (the later failures do not undo either).
    const late = ok.map((x, i) => (i >= 40 ? { ...x, success: false, input_tokens: 9000 } : x));
    const s = sampling('s', { success_rate: { min: 0.9 }, input_tokens: { mean: 2000 }, steps: { p95: 100 } }, late, R);
    expect(s).toMatchObject({
      outcome: {
        runs: 70,
        reason: 'decided after 70 runs: success_rate ≥ 0.9, steps p95 ≤ 100, input_tokens mean ≤ 2,000 hold at 95 %',
      },
    });
    expect('outcome' in s && [...s.outcome.decided]).toEqual([
      ['input_tokens mean ≤ 2,000', { decision: 'pass', at: 10 }],
      ['success_rate ≥ 0.9', { decision: 'pass', at: 40 }],
      ['steps p95 ≤ 100', { decision: 'pass', at: 70 }],
    ]);
  });
});

describe('error rates of the whole sequential procedure', () => {
  // 1,000 seeded checks of a scenario exactly at its budget: it may pass (a false pass) and fail (a
  // false fail: at the bar the budget holds) each at most 1 − c = 5 % of the time. Tolerance: three
  // binomial standard deviations of a 5 % rate over 1,000 checks, √(0.05·0.95/1000) ≈ 0.69 %.
  const tolerance = 3 * Math.sqrt((0.05 * 0.95) / 1000);
  const bar = 0.9;
  const d = sequentialDesign(R);
  const check =
    (a: Parameters<typeof sampling>[1], draw: (r: () => number, i: number) => Partial<RunRecord>) => (seed: number) => {
      const r = rng('adaptive-error-rate', seed);
      const runs = Array.from({ length: R.max }, (_, i) => run(i, draw(r, i)));
      const s = sampling('s', a, runs, R);
      if (!('outcome' in s)) throw new Error('every look has its runs');
      const [verdict] = evaluateAssertions('s', a, runs.slice(0, s.outcome.runs), {
        confidence: R.confidence,
        decided: s.outcome.decided,
      });
      const decided = [...s.outcome.decided.values()][0];
      return { pass: verdict!.pass, fail: decided?.decision === 'fail', stopped: s.outcome.stopped };
    };
  const atBar = check({ success_rate: { min: bar } }, (r) => ({ success: r() < bar }));
  const results = Array.from({ length: 1000 }, (_, i) => atBar(i + 1));
  const rate = (f: (x: (typeof results)[number]) => boolean) => results.filter(f).length / results.length;
  const exact = crossingProbabilities(bar, d.looks, d.boundaries(bar));

  it('1,000 seeded checks of a success rate at its bar: false passes and false fails each ≤ 5 % (+ 2.1 %), as the exact walk predicts, and most run to max', () => {
    expect(rate((x) => x.pass)).toBeLessThanOrEqual(0.05 + tolerance);
    expect(rate((x) => x.fail)).toBeLessThanOrEqual(0.05 + tolerance);
    expect(Math.abs(rate((x) => x.pass) - sum(exact.pass))).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(rate((x) => x.fail) - sum(exact.fail))).toBeLessThanOrEqual(tolerance);
    expect(results.filter((x) => x.stopped === 'max').length).toBeGreaterThan(850);
    // The figures the README states (exact: 4.8 % and 4.9 %).
    expect({
      pass: results.filter((x) => x.pass).length,
      fail: results.filter((x) => x.fail).length,
      max: results.filter((x) => x.stopped === 'max').length,
    }).toEqual({ pass: 42, fail: 44, max: 914 });
  });

  it('1,000 seeded checks of a mean at its limit (normal runs): false passes and false fails each ≤ 5 % (+ 2.1 %)', () => {
    const mean = check({ input_tokens: { mean: 1000 } }, (r) => ({ input_tokens: normal(r, 1000, 200) }));
    const m = Array.from({ length: 1000 }, (_, i) => mean(i + 1));
    expect(m.filter((x) => x.pass).length / 1000).toBeLessThanOrEqual(0.05 + tolerance);
    expect(m.filter((x) => x.fail).length / 1000).toBeLessThanOrEqual(0.05 + tolerance);
    // Well inside: the union bound over the looks is conservative.
    expect({ pass: m.filter((x) => x.pass).length, fail: m.filter((x) => x.fail).length }).toEqual({
      pass: 14,
      fail: 21,
    });
  });

  it('is deterministic for a seed', () => {
    expect(Array.from({ length: 50 }, (_, i) => atBar(i + 1))).toEqual(results.slice(0, 50));
  });
});
