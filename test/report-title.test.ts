// The report's title and its one-line decisions: the question a sweep answers and the answer, from the
// same figures as the tables (mean cost per run at each end of a step-limit family, the recommended limit).
import { describe, expect, it } from 'vitest';
import { summarizeConfigs, type ConfigSummary } from '../src/report/stats/aggregate.ts';
import { configEconomics } from '../src/report/stats/economics.ts';
import { recommendLimits } from '../src/report/findings/decision.ts';
import { parseVolumes } from '../src/report/stats/volume.ts';
import { reportTitle, titleText } from '../src/report/render/title.ts';
import { leadLine, sentences } from '../src/report/render/decision-lines.ts';
import { times, usdDistinct } from '../src/report/format/numbers.ts';
import { seedInput, synthRun } from './helpers/records.ts';

const runs = (scenario: string, maxSteps: number, n: number, o: { stepsToDone?: number; success?: boolean } = {}) =>
  Array.from(
    { length: n },
    (_, repeat) =>
      synthRun({ scenario, maxSteps, repeat, input: seedInput, stepsToDone: o.stepsToDone, success: o.success }).run,
  );

function title(summary: ConfigSummary[]) {
  return reportTitle(summary, recommendLimits(summary, configEconomics(summary, []), parseVolumes('10000/day')[0]!));
}

describe('the title: the question and its answer', () => {
  it('asks what the step limits cost and answers with the cost per run at each end, from the summary', () => {
    const summary = summarizeConfigs([...runs('seed', 12, 4), ...runs('seed', 30, 4)]);
    const [lo, hi] = [summary[0]!.cost_usd.mean, summary[1]!.cost_usd.mean];
    const money = usdDistinct([lo, hi]);
    // One scenario, one family: no name needed; the seed checks nothing, so nothing is recommended.
    expect(title(summary)).toEqual({
      question: 'What does MAX_STEPS 12 → 30 cost?',
      answer: `${times(hi / lo)} per run (${money(lo)} → ${money(hi)})`,
    });
  });

  it('names each scenario, says when the limits cost the same, and gives the recommended limit', () => {
    const summary = summarizeConfigs([
      ...runs('quick', 8, 5, { stepsToDone: 3, success: true }),
      ...runs('quick', 20, 5, { stepsToDone: 3, success: true }),
      ...runs('seed', 8, 3),
      ...runs('seed', 20, 3),
    ]);
    const t = title(summary);
    expect(t.question).toBe('What does MAX_STEPS 8 → 20 cost?');
    expect(t.answer).toMatch(
      /^quick: the same per run \(\$[0-9.]+\), recommended MAX_STEPS 8; seed: ×[0-9.]+ per run \(/,
    );
    expect(titleText(t)).toBe(`${t.question} ${t.answer}`);
  });

  it('says how success changes between the ends where it is checked and differs', () => {
    // At 2 steps no run reaches its answer (step 3): none succeeds.
    const summary = summarizeConfigs([
      ...runs('quick', 2, 4, { stepsToDone: 3, success: false }),
      ...runs('quick', 8, 4, { stepsToDone: 3, success: true }),
    ]);
    expect(title(summary).answer).toMatch(
      /^×[0-9.]+ per run \(\$[0-9.]+ → \$[0-9.]+\), success 0\/4 → 4\/4, recommended MAX_STEPS 8$/,
    );
  });

  it('without step-limit families: what each configuration costs, or the range over many', () => {
    const one = summarizeConfigs(runs('quick', 8, 3, { stepsToDone: 3, success: true }));
    expect(title(one)).toEqual({
      question: 'What does quick steps=8 cost?',
      answer: `${usdDistinct([one[0]!.cost_usd.mean])(one[0]!.cost_usd.mean)} per run, 3/3 succeeded`,
    });
    const two = summarizeConfigs([...runs('a', 8, 2), ...runs('b', 9, 2)]);
    expect(title(two).question).toBe('What do a steps=8 and b steps=9 cost?');
    const many = summarizeConfigs(['a', 'b', 'c', 'd'].flatMap((s, i) => runs(s, 4 + i, 2)));
    expect(title(many)).toMatchObject({
      question: 'What do these 4 configurations cost?',
      answer: expect.stringMatching(/^from \$[0-9.]+ per run \(a steps=4\) to \$[0-9.]+ \(d steps=7\)$/),
    });
    expect(title([])).toEqual({ question: 'What did these agent loops cost?', answer: 'no run was recorded' });
  });
});

describe('a decision in one line', () => {
  it('is its first sentence, or its first clauses when that runs past a line, and the whole text reads sentence by sentence', () => {
    const short =
      'seed: MAX_STEPS 12 → 30: steps taken ×2.5 (12.0 → 30.0) → input tokens ×6.34. No MAX_STEPS is recommended.';
    expect(leadLine(short)).toBe('seed: MAX_STEPS 12 → 30: steps taken ×2.5 (12.0 → 30.0) → input tokens ×6.34.');
    expect(sentences(short)).toHaveLength(2);
    const long =
      'tiny: recommended MAX_STEPS 12 — $0.00028 per successful task, success 10/10, the best of the limits swept; it costs the same as steps=30 (no run took more steps there). Rule: the cheapest.';
    expect(leadLine(long)).toBe(
      'tiny: recommended MAX_STEPS 12 — $0.00028 per successful task, success 10/10, the best of the limits swept …',
    );
    expect(leadLine(long).length).toBeLessThanOrEqual(120);
  });
});
