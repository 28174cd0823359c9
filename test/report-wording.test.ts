// What the reports say where a reader could misread them: the cumulative-cost chart's end labels next to the
// tables' cost per run, how imported costs are priced, counts of one, and the check's section in report.html.
import { describe, expect, it } from 'vitest';
import { cumulativeCostChart } from '../src/report/charts/steps.ts';
import { configColours } from '../src/report/charts/colours.ts';
import { counted } from '../src/report/format/numbers.ts';
import { describePricing } from '../src/report/render/report-data.ts';
import { withCheckSection } from '../src/report/render/html.ts';
import { checkHtmlSection } from '../src/gate/summary-md.ts';
import { UNKNOWN_PRICE } from '../src/contracts/settings.ts';
import type { StepPoint } from '../src/report/stats/step-points.ts';
import type { ConfigSummary } from '../src/report/stats/aggregate.ts';

const point = (config: string, step: number, runs: number, cost: number): StepPoint => ({
  config_id: `s ${config}`,
  scenario: 's',
  max_steps: null,
  step,
  calls: runs,
  runs,
  input_tokens: 0,
  cum_input_tokens: 0,
  cum_cost_usd: cost,
});

describe('the cumulative-cost chart against the tables', () => {
  it('an end only the longest runs reach says how many got there; one every run reaches is the cost per run', () => {
    // steps=4: 10 runs, 3 reach step 4; steps=2: all 10 stop at 2.
    const points = [
      point('steps=4', 1, 10, 1e-4),
      point('steps=4', 4, 3, 3.5e-4),
      point('steps=2', 1, 10, 1e-4),
      point('steps=2', 2, 10, 2e-4),
    ];
    const chart = cumulativeCostChart(
      points,
      ['s'],
      configColours([
        { config_id: 's steps=4', scenario: 's' },
        { config_id: 's steps=2', scenario: 's' },
      ]),
      new Map([
        ['s steps=4', 10],
        ['s steps=2', 10],
      ]),
      'at the recorded prices',
    );
    const labels = (chart.spec as { data: { values: Array<{ kind: string; label?: string }> } }).data.values
      .filter((v) => v.kind === 'end')
      .map((v) => v.label);
    expect(labels).toEqual(['steps=2 · $0.00020', 'steps=4 · $0.00035 (3 of 10 runs reach step 4)']);
    expect(chart.caption).toContain('the tables’ cost per run is the mean over all runs');
  });
});

describe('wording', () => {
  const summary = (price: { model: string }) =>
    [{ settings: { price: { ...UNKNOWN_PRICE, ...price } } }] as unknown as ConfigSummary[];

  it('imported costs are as recorded in the trajectories, not "priced as unknown ($0)"', () => {
    expect(
      describePricing([...summary(UNKNOWN_PRICE), ...summary({ model: 'gpt-4o-mini' })], { imported: 'atif' }),
    ).toBe(
      'as recorded in the trajectories (steps with tokens but no cost_usd priced as gpt-4o-mini ($0 input / $0 cached input / $0 output per 1M tokens))',
    );
    expect(describePricing(summary(UNKNOWN_PRICE), { imported: 'otlp' })).toBe('as recorded in the trajectories');
    expect(describePricing(summary({ model: 'gpt-4o-mini' }), { imported: null })).toMatch(
      /^priced as recorded: gpt-4o-mini/,
    );
    // Session logs record tokens only: every call was priced by the import, none "as recorded".
    expect(describePricing(summary({ model: 'claude-sonnet-4-5' }), { imported: 'claude-code' })).toMatch(
      /^priced per call from its recorded tokens at the rates of the model it recorded \(the logs hold no costs\): claude-sonnet-4-5/,
    );
  });

  it('costs say where they come from: a message list records no usage, so its costs are counted by loopbench, never "as recorded"', () => {
    const said = describePricing(summary({ model: 'gpt-4o' }), { imported: 'messages' });
    expect(said).toMatch(
      /^counted by loopbench: the message lists hold no usage, so every call's tokens were counted with loopbench's o200k_base counter and priced as gpt-4o \(/,
    );
    expect(said).not.toContain('as recorded');
    expect(describePricing(summary({ model: 'gpt-4o' }), { imported: 'chatlog' })).toMatch(
      /^priced by loopbench: tokens as the chat log recorded them, which records no cost, priced as gpt-4o \(/,
    );
  });

  it('a count of one is singular', () => {
    expect([counted(1, 'configuration'), counted(4, 'configuration'), counted(1, 'run')]).toEqual([
      '1 configuration',
      '4 configurations',
      '1 run',
    ]);
  });
});

describe("bench check's verdict in report.html", () => {
  const html =
    '<main>\n<h1>loopbench report: x</h1>\n<p class="lede">What these agent loops cost.</p>\n<section id="decision"></section>\n</main>';
  const verdict = (pass: boolean) => ({
    suite: 's',
    name: 'steps max ≤ 2',
    pass,
    measured: '3',
    limit: '≤ 2',
    message: 's: steps max ≤ 2 breached: measured 3 over 3 run(s)',
  });

  it('goes first, under the title: the verdict, each budget, why it failed; written again it replaces itself', () => {
    const failed = withCheckSection(
      html,
      checkHtmlSection({
        budgetsFile: 'b.yaml',
        model: 'sim',
        simulated: true,
        verdicts: [verdict(false), { ...verdict(true), name: 'cost_usd p95 ≤ $0.002' }],
      }),
    );
    expect(failed.indexOf('<section id="check"')).toBeLessThan(failed.indexOf('<section id="decision"'));
    expect(failed.indexOf('<section id="check"')).toBeGreaterThan(failed.indexOf('<p class="lede">'));
    expect(failed).toContain('<h2>bench check FAIL: 1 of 2 budgets breached</h2>');
    // A breach is marked in colour (its row's class) as well as in its word; a budget that holds is not.
    expect(failed).toContain(
      '<tr class="breached"><td>breached</td><td>s</td><td>steps max ≤ 2</td><td>3</td><td>≤ 2</td></tr>',
    );
    expect(failed).toContain('<tr class="holds"><td>holds</td><td>s</td><td>cost_usd p95 ≤ $0.002</td>');
    expect(failed).toContain('<li>s: steps max ≤ 2 breached: measured 3 over 3 run(s)</li>');
    const again = withCheckSection(
      failed,
      checkHtmlSection({ budgetsFile: 'b.yaml', model: 'gpt-4o-mini', simulated: false, verdicts: [verdict(true)] }),
    );
    expect(again.match(/<section id="check"/g)).toHaveLength(1);
    expect(again).toContain('<h2>bench check PASS: the 1 budget holds</h2>');
    // The sim's caveat stands beside a verdict judged on the sim, and only there.
    expect(failed).toContain(
      "Budgets b.yaml, model sim: the simulated model follows its profile, not your prompt's meaning",
    );
    expect(again).not.toContain('simulated model follows its profile');
  });
});
