// What-if limits from recorded trajectories: a run recorded under one set of limits contains, call by
// call, what the same run does under any tighter limit — its prefix. The brakes are replayed over the
// step records (the same brake code the runs used), so no model is called. The one assumption: the
// trajectory does not depend on the limit (true unless the prompt states the limit to the model).
import { brakesFor } from '../brakes/index.ts';
import { admitAction, newRunState, type PendingCall } from '../brakes/brake.ts';
import { callCost } from '../meter/pricing.ts';
import { RunLedger } from '../meter/ledger.ts';
import { isRefused, REFUSED, type RunRecord } from '../contracts/records.ts';
import type { DerivedRun, ReplayedStep } from '../contracts/derived.ts';
import type { Limits } from '../contracts/settings.ts';
import type { Stop, StopReason } from '../contracts/stop-reason.ts';
import { ACTIONS_JOINED_BY, argsOfFingerprint } from '../contracts/fingerprint.ts';

/** The limits a what-if may change, as `bench report --what-if` names them. */
export const WHAT_IF_LIMITS = {
  steps: 'max_steps',
  tokens: 'max_tokens',
  cost: 'max_cost_usd',
  timeout: 'timeout_s',
  repeat: 'max_repeat',
  calls: 'max_calls',
} as const;
export type WhatIfName = keyof typeof WHAT_IF_LIMITS;
export type WhatIfLimit = (typeof WHAT_IF_LIMITS)[WhatIfName];

/** Brake names (brakesFor) by the limit that switches them on. */
const BRAKE_OF: Record<WhatIfLimit, string> = {
  max_steps: 'max_steps',
  max_tokens: 'max_tokens',
  max_cost_usd: 'max_cost',
  timeout_s: 'timeout',
  max_repeat: 'spin',
  max_calls: 'max_calls',
};
/** Brakes that decide from the run's state alone; the others project the next call, which the records hold only when it was made. */
const STATE_ONLY = new Set(['max_steps', 'max_calls', 'timeout', 'max_rounds']);
/** Stops that are the run's own end, not a brake: no limit changes them once the records reach them. */
/** The order brakesFor checks them in. */
const CHECK_ORDER = ['max_steps', 'max_rounds', 'max_calls', 'timeout', 'max_cost', 'max_tokens', 'spin'];
const OWN_END = new Set<StopReason>(['done', 'error', 'interrupted', 'queue_empty', 'imported']);

export type Derivation = { ok: true; run: DerivedRun } | { ok: false; reason: string };

const fmt = (v: number | null) => (v === null ? 'off' : String(v));

/**
 * The outcome of `run` (recorded with `steps`, in call order) had its limits been `limits`. Refused, with
 * the reason, when the records cannot tell: a loosened brake that stopped the run (what came next was
 * never recorded), calls that are not plain agent steps, or an action brake over several actions per call.
 */
export function deriveRun(
  run: RunRecord,
  steps: readonly ReplayedStep[],
  limits: Limits,
  configId: string,
): Derivation {
  const recorded = run.settings.limits;
  const changed = (Object.keys(limits) as Array<keyof Limits>).filter((k) => limits[k] !== recorded[k]);
  if (steps.length !== run.calls)
    return {
      ok: false,
      reason: `${run.run_id}: steps.jsonl holds ${steps.length} of its ${run.calls} calls, so its trajectory is incomplete`,
    };
  if (run.agent !== 'react' && run.agent !== 'external')
    return {
      ok: false,
      reason: `${run.agent} runs: what-if is derived for one-call-per-step loops only (ReAct, imported traces, --agent-cmd agents)`,
    };
  const refused = agentRefusal(run, steps, changed);
  if (refused) return { ok: false, reason: refused };
  const other = steps.find((s) => s.role !== 'act');
  if (other)
    return {
      ok: false,
      reason: `${run.config_id}: its runs make '${other.role}' calls besides the agent's steps (reflection or a summarizing context), which the step records do not let a what-if replay`,
    };
  if (changed.includes('max_rounds')) return { ok: false, reason: 'max_rounds limits the task queue, not ReAct runs' };
  const brakes = brakesFor(limits).filter((b) => changed.some((k) => BRAKE_OF[k as WhatIfLimit] === b.name));
  const spin = brakes.find((b) => b.name === 'spin');
  if (spin && steps.some((s) => s.action?.includes(ACTIONS_JOINED_BY)))
    return {
      ok: false,
      reason: `${run.config_id}: some calls ran several actions at once, and the records keep them joined, so repeats cannot be counted one by one`,
    };

  const price = run.settings.price;
  const state = newRunState();
  // The derived run's totals are its steps', added as recorded.
  const ledger = new RunLedger(`${run.run_id}~${configId}`, configId, { ...run.settings, limits }, state);
  const pendingOf = (s: ReplayedStep): PendingCall => ({
    role: s.role,
    inputTokens: s.input_tokens,
    maxOutputTokens: run.settings.max_output_tokens,
    projectedCostUsd: callCost(price, s.input_tokens, run.settings.max_output_tokens, 0),
  });
  const finish = (stop: Pick<Stop, 'reason' | 'step'>, detail: string, elapsedMs: number): Derivation => {
    const same = stop.reason === run.stop_reason && state.calls === run.calls;
    // A run cut short has no answer: it fails its check (no check: not measured), as a live run would.
    const success = same ? run.success : run.success === null ? null : false;
    const {
      answer: _answer,
      started_at: _started,
      finished_at: _finished,
      ...derived
    } = ledger.runRecord({
      agent: run.agent,
      stop: { reason: stop.reason, detail: same ? run.stop_detail : detail, step: stop.step },
      elapsedMs: same ? run.elapsed_ms : elapsedMs,
      answer: null,
      success,
      started_at: '',
      finished_at: '',
      ...(run.extra ? { extra: run.extra } : {}),
    });
    return { ok: true, run: { ...derived, derived_from: run.config_id, derived_from_run: run.run_id } };
  };

  for (const s of steps) {
    // A request the gateway refused reached no model: no brake was asked, it is counted as recorded.
    if (isRefused(s)) {
      ledger.add(s);
      continue;
    }
    // Before the call: the clock as the brake saw it is the time after the call less its latency.
    state.elapsedMs = s.elapsed_ms - s.latency_ms;
    const pending = pendingOf(s);
    for (const b of brakes) {
      const stop = b.beforeCall?.(state, pending);
      if (!stop) continue;
      // An external agent makes this call all the same, and the gateway refuses and records it.
      if (run.agent === 'external')
        ledger.record({
          step: state.steps,
          role: 'act',
          usage: { prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0 },
          latencyMs: 0,
          elapsedMs: state.elapsedMs,
          error: `${REFUSED}: loopbench brake '${stop.reason}' (derived)`,
        });
      return finish(stop, `${stop.detail} (derived from ${run.config_id})`, state.elapsedMs);
    }
    ledger.add(s);
    if (s.fingerprint !== null) {
      const tool = s.action ?? '';
      const action = { tool, fingerprint: s.fingerprint, argsJson: argsOfFingerprint(tool, s.fingerprint) };
      const stop = admitAction(spin ? [spin] : [], state, action);
      if (stop) return finish(stop, `${stop.detail} (derived from ${run.config_id})`, state.elapsedMs);
    }
  }
  // An external agent is stopped at its timeout wherever it is, also after its last call (the gateway
  // ends the process): a run that went on past a tighter timeout would have been cut there.
  const timeout = limits.timeout_s;
  if (
    run.agent === 'external' &&
    changed.includes('timeout_s') &&
    timeout !== null &&
    run.elapsed_ms > timeout * 1000 &&
    run.stop_reason !== 'timeout'
  )
    return finish(
      { reason: 'timeout', step: state.steps },
      `timeout: the agent was still running at ${timeout} s (its run took ${(run.elapsed_ms / 1000).toFixed(1)} s) (derived from ${run.config_id})`,
      timeout * 1000,
    );
  // The records end where the run ended. Its own end stands; a brake's stop stands if that brake is as tight or tighter.
  if (OWN_END.has(run.stop_reason))
    return finish({ reason: run.stop_reason, step: run.stop_step }, run.stop_detail, run.elapsed_ms);
  state.elapsedMs = run.elapsed_ms;
  // A blocked action ends the run after its call: no brake before the next call is asked.
  if (run.stop_reason !== 'spin') {
    for (const b of brakes) {
      // Brakes are asked in order; those after the one that stopped the run were never asked.
      if (CHECK_ORDER.indexOf(b.name) >= CHECK_ORDER.indexOf(run.stop_reason)) break;
      if (!STATE_ONLY.has(b.name)) return unknown(run, b.name);
      const stop = b.beforeCall?.(state, { role: 'act', inputTokens: 0, maxOutputTokens: 0, projectedCostUsd: 0 });
      if (stop) return finish(stop, `${stop.detail} (derived from ${run.config_id})`, state.elapsedMs);
    }
  }
  const key = (Object.keys(BRAKE_OF) as WhatIfLimit[]).find((k) => BRAKE_OF[k] === run.stop_reason);
  if (key && changed.includes(key) && !tighter(limits[key], recorded[key])) {
    return {
      ok: false,
      reason: `${run.config_id}: runs were stopped by ${run.stop_reason} at ${fmt(recorded[key])} (step ${run.stop_step}); what came after was never recorded, so ${key} ${fmt(limits[key])} needs new runs`,
    };
  }
  return finish({ reason: run.stop_reason, step: run.stop_step }, run.stop_detail, run.elapsed_ms);
}

/**
 * What the records of an external agent (`--agent-cmd`) or of a clock-less import cannot answer, per
 * limit: null when the what-if can be derived.
 */
function agentRefusal(run: RunRecord, steps: readonly ReplayedStep[], changed: readonly string[]): string | null {
  const imported = run.extra?.imported as { clock?: boolean } | undefined;
  if (changed.includes('timeout_s') && imported?.clock === false)
    return `${run.config_id}: its trajectories hold no times (a message list), so a timeout cannot be derived from them`;
  if (run.agent !== 'external') return null;
  const budget = changed.find((k) => k === 'max_cost_usd' || k === 'max_tokens');
  if (budget)
    return `${run.config_id}: an --agent-cmd agent's calls were admitted against each request's own max_tokens and the gateway's count of it, which the step records do not keep, so ${budget} needs new runs (steps, calls, timeout and repeat can be derived)`;
  // Calls in flight at once were admitted against each other's worst case: their order under a tighter limit depends on their timing.
  for (let i = 1; i < steps.length; i++) {
    const s = steps[i]!;
    // 1 ms of slack: latency and elapsed time are each rounded to the millisecond.
    if (s.elapsed_ms - s.latency_ms < steps[i - 1]!.elapsed_ms - 1)
      return `${run.config_id}: run ${run.run_id} made calls in parallel (call ${s.call} began before call ${s.call - 1} ended), so which of them a tighter limit would have admitted is not in the records`;
  }
  return null;
}

const tighter = (v: number | null, than: number | null) => v !== null && (than === null || v <= than);

function unknown(run: RunRecord, brake: string): Derivation {
  return {
    ok: false,
    reason: `${run.config_id}: runs ended with ${run.stop_reason} before their next call was made, so whether ${brake} would have fired first is not in the records`,
  };
}
