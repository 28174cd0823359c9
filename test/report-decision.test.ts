// Findings that cannot mislead, and the decision made explicit: each sentence checked against the case
// that used to mislead (another brake deciding, no check, several settings varying, near-equal costs).
import { describe, expect, it } from 'vitest';
import { summarizeConfigs } from '../src/report/stats/aggregate.ts';
import { costPerSuccess } from '../src/report/stats/cost-per-success.ts';
import { wilson } from '../src/stats/binomial.ts';
import { costBars } from '../src/report/charts/cost.ts';
import { economicsRow } from '../src/report/render/csv.ts';
import { decisionTable, ratioTableRows } from '../src/report/tables/tables.ts';
import { configEconomics } from '../src/report/stats/economics.ts';
import { recommendLimits, RULE_CHECKED, RULE_UNCHECKED } from '../src/report/findings/decision.ts';
import { findings } from '../src/report/findings/findings.ts';
import { ratioTable, stepLimitSavings } from '../src/report/stats/step-limits.ts';
import { QuadraticFitAccumulator } from '../src/report/stats/fit.ts';
import { usd, usdDistinct } from '../src/report/format/numbers.ts';
import { parseVolumes, projectVolumes } from '../src/report/stats/volume.ts';
import type { RunRecord, StepRecord } from '../src/contracts/records.ts';
import { seedInput, synthRun } from './helpers/records.ts';

type Rec = { run: RunRecord; steps: StepRecord[] };

/** Runs at `maxSteps` that another brake stopped at step `at` (the budget, by default). */
function stoppedAt(
  scenario: string,
  maxSteps: number,
  at: number,
  n: number,
  reason: RunRecord['stop_reason'] = 'max_cost',
): Rec[] {
  return Array.from({ length: n }, (_, repeat) => {
    const r = synthRun({ scenario, maxSteps: at, repeat, input: seedInput });
    const settings = { ...r.run.settings, limits: { ...r.run.settings.limits, max_steps: maxSteps } };
    const configId = `${scenario} steps=${maxSteps}`;
    return {
      run: { ...r.run, settings, config_id: configId, stop_reason: reason },
      steps: r.steps.map((s) => ({ ...s, settings, config_id: configId })),
    };
  });
}

const limited = (
  scenario: string,
  maxSteps: number,
  n: number,
  o: { stepsToDone?: (i: number) => number; success?: (i: number) => boolean | null } = {},
): Rec[] =>
  Array.from({ length: n }, (_, repeat) =>
    synthRun({
      scenario,
      maxSteps,
      repeat,
      input: seedInput,
      stepsToDone: o.stepsToDone?.(repeat),
      success: o.success?.(repeat),
    }),
  );

function report(recs: Rec[], volume = '10000/day') {
  const summary = summarizeConfigs(recs.map((r) => r.run));
  const acc = new QuadraticFitAccumulator();
  for (const r of recs) for (const s of r.steps) acc.addStep(s);
  const fits = acc.fits();
  const volumes = parseVolumes(volume);
  const text = findings({
    summary,
    fits,
    ratios: ratioTable(summary, fits),
    savings: stepLimitSavings(summary),
    volumes: projectVolumes(summary, volumes),
  });
  const economics = configEconomics(summary, fits);
  return { summary, text, economics, recommendations: recommendLimits(summary, economics, volumes[0]!) };
}

describe('findings say what really stopped the runs', () => {
  const { text, summary } = report([...limited('seed', 12, 10), ...stoppedAt('seed', 30, 24, 10)]);

  it('the ×k → ×r table reads the steps taken, with the limits beside them', () => {
    const [row] = ratioTable(summary, []);
    expect(row).toMatchObject({
      from_max_steps: 12,
      to_max_steps: 30,
      from_steps_mean: 12,
      to_steps_mean: 24,
      steps_ratio: 2,
    });
    expect(ratioTableRows([row!]).rows[0]!.slice(0, 4)).toEqual(['seed', '12 → 30', '12.0 → 24.0', '×2']);
  });

  it('a step limit the budget pre-empted is named as never reached, and ratios use the steps taken', () => {
    const fit = text.find((t) => t.startsWith('seed: cumulative input tokens'))!;
    expect(fit).toContain('MAX_STEPS 12 → 30: steps taken ×2 (12.0 → 24.0)');
    expect(fit).toContain('at steps=30, 10 of 10 runs were stopped by the budget at step 24, so 30 was never reached');
    expect(fit).not.toMatch(/Steps ×2\.5/);
    const saving = text.find((t) => t.includes('lowering MAX_STEPS from 30 to 12'))!;
    expect(saving).toContain('steps taken 24.0 → 12.0');
    expect(saving).toContain('10 of 10 runs at 12 were cut off by the step limit');
    expect(saving).toContain('so 30 was never reached');
  });

  it('without a check, success is "not measured (no check)", never "risks no success" or "0 of 0"', () => {
    const saving = text.find((t) => t.includes('lowering MAX_STEPS'))!;
    expect(saving).toContain('success not measured (no check)');
    expect(text.join('\n')).not.toMatch(/risks no success|0 of 0/);
  });

  it('a timeout that stopped part of a lower limit is said for that limit too', () => {
    const { text } = report(
      [
        ...limited('p', 30, 4),
        ...stoppedAt('p', 35, 33, 3, 'timeout'),
        ...limited('p', 35, 7),
        ...stoppedAt('p', 40, 34, 10, 'timeout'),
      ].map((r, i) => ({ ...r, run: { ...r.run, run_id: `${r.run.run_id}-${i}` } })),
    );
    const s = text.find((t) => t.includes('from 40 to 35'))!;
    expect(s).toContain(
      'at steps=35, 7 of 10 runs were stopped by the step limit at step 35, 3 were stopped by the timeout at step 33',
    );
    expect(s).toContain('at steps=40, 10 of 10 runs were stopped by the timeout at step 34, so 40 was never reached');
  });

  it('names every setting that differs when several vary (max-repeat 3 against off)', () => {
    const off = (recs: Rec[]) =>
      recs.map(({ run, steps }) => {
        const settings = { ...run.settings, limits: { ...run.settings.limits, max_repeat: null } };
        const config_id = `${run.config_id} repeat=off`;
        return {
          run: { ...run, settings, config_id, run_id: `${run.run_id}-off` },
          steps: steps.map((s) => ({ ...s, settings, config_id })),
        };
      });
    const { text, recommendations } = report([
      ...limited('s', 10, 2),
      ...limited('s', 20, 2),
      ...off(limited('s', 10, 2)),
      ...off(limited('s', 20, 2)),
    ]);
    const sentences = text.filter((t) => t.includes('lowering MAX_STEPS from 20 to 10'));
    expect(sentences.map((t) => t.slice(0, t.indexOf(':')))).toEqual(['s (repeat=3)', 's (repeat=off)']);
    expect(recommendations.map((r) => r.family)).toEqual(['repeat=3', 'repeat=off']);
    expect(text[0]).toMatch(/MAX_STEPS 10 → 20 \(repeat=(3|off)\): steps taken/);
  });

  it('says the volume as written', () => {
    const { text } = report(limited('v', 10, 2), '2e6/month');
    expect(text.at(-1)).toMatch(/^At 2,000,000 runs a month, /);
  });
});

describe('costs print with enough digits to tell configurations apart', () => {
  it('never prints two different amounts the same', () => {
    expect(usd(0.00024)).toBe(usd(0.00024));
    const f = usdDistinct([0.000236, 0.000264]);
    expect(f(0.000236)).not.toBe(f(0.000264));
    const g = usdDistinct([0.0205, 0.021]);
    expect([g(0.0205), g(0.021)]).toEqual(['$0.0205', '$0.0210']);
    const h = usdDistinct([138_690.4, 138_699.6]);
    expect(h(138_690.4)).not.toBe(h(138_699.6));
    expect(usdDistinct([0.46, 0.12])(0.46)).toBe('$0.46');
    // The same money summed in another order differs in its last bits: not a reason for six digits.
    expect(usdDistinct([0.1 + 0.2, 0.3, 0.5])(0.3)).toBe('$0.30');
    expect([usd(0.00024), usd(0.0000001), usd(0.0205, 3), usd(12.4), usd(1290)]).toEqual([
      '$0.00024',
      '$0.00000010',
      '$0.0205',
      '$12.40',
      '$1,290',
    ]);
  });
});

describe('the decision', () => {
  it('cost per successful task has one definition: the tables, summary.csv, the charts and the rule read the same figures', () => {
    const recs = limited('c', 10, 10, { stepsToDone: (i) => (i < 5 ? 5 : 20), success: (i) => i < 5 });
    const { economics, summary } = report(recs);
    const runs = recs.map((r) => r.run);
    const one = costPerSuccess(runs, runs[0]!.settings.limits.max_cost_usd)!;
    expect(one.value).toBeCloseTo(summary[0]!.cost_usd.mean / 0.5, 12);
    const e = economics[0]!;
    expect([e.cost_per_success, e.cost_per_success_ci]).toEqual([one.value, one.ci]);
    expect(economicsRow(e)).toMatchObject({
      cost_usd_per_success: one.value,
      cost_usd_per_success_ci95_lo: one.ci!.lo,
      cost_usd_per_success_ci95_hi: one.ci!.hi,
    });
    const bar = costBars(runs, summary).find((b) => b.measure === 'per successful task')!;
    expect([bar.cost, bar.lo, bar.hi]).toEqual([one.value, one.ci!.lo, one.ci!.hi]);
    const money = usdDistinct([e.cost_per_run, one.value, one.ci!.lo, one.ci!.hi]);
    expect(decisionTable(summary, economics).rows[0]![3]).toBe(
      `${money(one.value)} (${money(one.ci!.lo)}–${money(one.ci!.hi)})`,
    );
  });

  it('marginal cost of one more step: measured between neighbouring limits over the steps taken, and on the fit', () => {
    const { economics, summary } = report([...limited('m', 10, 2), ...limited('m', 20, 2)]);
    const [lo, hi] = summary;
    const measured = (hi!.cost_usd.mean - lo!.cost_usd.mean) / 10;
    expect(economics.map((e) => e.marginal_step_cost)).toEqual([measured, measured]);
    // Step 11's input on the seed's curve is 200 + 600·10 tokens, plus 150 output.
    expect(economics[0]!.marginal_step_cost_fit).toBeCloseTo((6200 * 0.15 + 150 * 0.6) / 1e6, 9);
    // No step taken between limits (another brake stopped both at 24): no marginal cost to show.
    const braked = report([...stoppedAt('b', 30, 24, 2), ...stoppedAt('b', 40, 24, 2)]);
    expect(braked.economics.map((e) => e.marginal_step_cost)).toEqual([null, null]);
  });

  it('recommends the cheapest limit per successful task not significantly worse than the best, with its rule and saving', () => {
    // 20 runs per limit: at 5 every run is cut off; at 10 one is, a run that needs 35 steps: it costs more than the other 19 together.
    const toDone = (i: number) => (i === 0 ? 35 : 8);
    const recs = [5, 10, 40].flatMap((m) =>
      limited('r', m, 20, { stepsToDone: toDone, success: (i) => toDone(i) <= m }),
    );
    const { recommendations, summary, economics } = report(recs);
    const [r] = recommendations;
    // Cheaper per run at 10 and per successful task too; at 5 cheapest per run but nothing succeeds.
    expect(economics[1]!.cost_per_success!).toBeLessThan(economics[2]!.cost_per_success!);
    expect(economics[0]!.cost_per_success).toBe(Infinity);
    expect(r!.max_steps).toBe(10);
    expect(r!.rule).toBe(RULE_CHECKED);
    const saving = (summary[2]!.cost_usd.mean - summary[1]!.cost_usd.mean) * 10_000 * 30;
    expect(r!.saving_usd_per_month).toBeCloseTo(saving, 9);
    expect(r!.sentence).toMatch(
      /^r: recommended MAX_STEPS 10 — \$[0-9.]+ per successful task, success 19\/20 against 20\/20 at the best limit \(40; difference −\d+ to \+\d+ points\); against steps=40 it saves \$[0-9.,]+ a month at 10,000 runs a day\. Rule: /,
    );
  });

  it('says what to run next when the sweep cannot tell', () => {
    const few = report(
      [2, 8].flatMap((m) =>
        limited('f', m, 3, { stepsToDone: (i) => (i === 0 ? 4 : 2), success: (i) => (i === 0 ? 4 : 2) <= m }),
      ),
    );
    expect(few.recommendations[0]!.next).toMatch(/run --repeat 12 to halve it/);
    const lowest = report([4, 8].flatMap((m) => limited('l', m, 20, { stepsToDone: () => 3, success: () => true })));
    expect(lowest.recommendations[0]!.max_steps).toBe(4);
    expect(lowest.recommendations[0]!.next).toBe(
      'every run finished by step 3, below the lowest limit swept: a tighter limit costs the same until it cuts runs off — try --steps 3..3',
    );
    // 200 runs a limit: one run in 200 cut off at 4 is a loss the interval bounds tightly.
    const cut = report(
      [4, 8].flatMap((m) =>
        limited('c', m, 200, { stepsToDone: (i) => (i === 0 ? 6 : 3), success: (i) => (i === 0 ? 6 : 3) <= m }),
      ),
    );
    expect(cut.recommendations[0]!.max_steps).toBe(4);
    expect(cut.recommendations[0]!.next).toBe(
      'the lowest limit swept was picked and stopped runs: try lower limits, e.g. --steps 2..3:1',
    );
    // No check: nothing to weigh cost against, so no limit is recommended; the line leads with the ×k → ×r finding.
    const unchecked = report([...limited('u', 12, 2), ...stoppedAt('u', 30, 24, 2)]);
    const [u] = unchecked.recommendations;
    expect(u).toMatchObject({ max_steps: null, config_id: null, saving_usd_per_month: null, rule: RULE_UNCHECKED });
    // The 30-step runs were all stopped by the budget at step 24: the line names that brake, not a step limit they never reached.
    expect(u!.sentence).toMatch(
      /^u: MAX_STEPS 12 → 30: steps taken ×2 \(12\.0 → 24\.0\) → input tokens ×[0-9.]+, \$[0-9.]+ → \$[0-9.]+ per run; at steps=30, 2 of 2 runs were stopped by the budget at step 24, so 30 was never reached\. No MAX_STEPS is recommended: the scenario checks no answer/,
    );
    expect(u!.sentence).not.toContain('recommended MAX_STEPS');
    expect(u!.next).toMatch(/add a check/);
    // Checked: the recommendation too names the brake that cut the limit it is measured against.
    const cutByBudget = stoppedAt('b', 30, 24, 20).map((r) => ({ ...r, run: { ...r.run, success: false } }));
    const [b] = report([
      ...limited('b', 12, 20, { stepsToDone: () => 3, success: () => true }),
      ...cutByBudget,
    ]).recommendations;
    expect(b!.max_steps).toBe(12);
    expect(b!.sentence).toContain(
      '; at steps=30, 20 of 20 runs were stopped by the budget at step 24, so 30 was never reached. Rule:',
    );
  });
});
