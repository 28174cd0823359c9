// What a simulated model does at a given step: a pure function of its profile, the step and the
// run's draw of how many steps it needs. No state: the step comes from the conversation itself.
import type { ActionTemplate, Dist, Profile, StepsToDone } from './profile.ts';
import { ModelError } from '../contracts/chat.ts';
import { normal, rng, type Rng } from './rng.ts';

export type Decision = { kind: 'action'; template: ActionTemplate; n: number } | { kind: 'answer' };

export function draw(r: Rng, d: Dist): number {
  if (typeof d === 'number') return d;
  return Math.max(d.min ?? 0, normal(r, d.mean, d.sd));
}

/** Steps the model needs including its answer, drawn once per run from the seed. */
export function drawStepsToDone(d: StepsToDone, seed: number): number {
  const r = rng(seed, 'steps_to_done');
  if ('fixed' in d) return d.fixed;
  if ('uniform' in d) return d.uniform[0] + Math.floor(r() * (d.uniform[1] - d.uniform[0] + 1));
  return Math.max(1, Math.round(d.lognormal.median * Math.exp(d.lognormal.sigma * normal(r, 0, 1))));
}

export function cyclic(list: ActionTemplate[], index: number): Decision {
  return { kind: 'action', template: list[index % list.length]!, n: Math.floor(index / list.length) + 1 };
}

export function decide(p: Profile, step: number, seed: number): Decision {
  switch (p.behaviour) {
    case 'converge':
      return step < drawStepsToDone(p.steps_to_done!, seed) ? cyclic(p.actions, step - 1) : { kind: 'answer' };
    case 'perfectionist':
      return step <= p.actions.length
        ? cyclic(p.actions, step - 1)
        : cyclic(p.improvements, step - p.actions.length - 1);
    case 'stuck':
    case 'cycle':
    case 'recursive-verify':
      return cyclic(p.actions, step - 1);
    case undefined:
      throw new ModelError(`simulated profile '${p.id}' has no ReAct behaviour (it only plays the task queue's roles)`);
  }
}

/** Fill {n} and {step} in every string of the arguments. */
export function fillArgs(value: unknown, n: number, step: number): unknown {
  if (typeof value === 'string') return value.replaceAll('{n}', String(n)).replaceAll('{step}', String(step));
  if (Array.isArray(value)) return value.map((v) => fillArgs(v, n, step));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillArgs(v, n, step)]));
  return value;
}
