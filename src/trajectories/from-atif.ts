// One ATIF trajectory → one loopbench run: a StepRecord per agent step (one model call each), a
// RunRecord for the whole. Pure: no files, no clock. What a trajectory does not say (the original
// agent's limits, its seed) is recorded as unknown, never guessed.
import { fingerprint } from '../contracts/fingerprint.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { UNKNOWN_PRICE, type Price, type Settings } from '../contracts/settings.ts';
import { STOP_REASONS, type StopReason } from '../contracts/stop-reason.ts';
import { callCost } from '../meter/pricing.ts';
import { ARGUMENTS_UNKNOWN, type AtifStep, type AtifTrajectory } from './atif-schema.ts';
import { exportedRecords } from './exported.ts';

export interface AtifImportOptions {
  /** The scenario every run is filed under (default: the agent's name). */
  scenario?: string;
  /** Prices a step that has tokens but no cost_usd; also the run's recorded price. Undefined: unknown. */
  price?: Price;
  /** Success from a side file, by session_id; overrides what the trajectory says. */
  success?: boolean | null;
  /** 1-based index of this run within its configuration (plan order for the reports). */
  repeat: number;
}

export interface ImportedRun {
  run: RunRecord;
  steps: StepRecord[];
  /** What the import had to assume, one short sentence each (shown once per batch). */
  notes: string[];
}

const ms = (t: string | null | undefined): number | null => {
  const v = t ? Date.parse(t) : NaN;
  return Number.isFinite(v) ? v : null;
};

/** The model a run used: the agent's default, else the first agent step that names one. */
export function modelOf(t: AtifTrajectory): string {
  return t.agent.model_name ?? t.steps.find((s) => s.source === 'agent' && s.model_name)?.model_name ?? 'unknown';
}

/** The scenario a run is filed under: the flag, else the trajectory's own `extra.scenario`, else its agent's name. */
export function scenarioOf(t: AtifTrajectory, o: Pick<AtifImportOptions, 'scenario'>): string {
  const own = t.extra?.scenario;
  return o.scenario ?? (typeof own === 'string' && own ? own : t.agent.name);
}

function settingsFor(t: AtifTrajectory, o: AtifImportOptions): Settings {
  return {
    scenario: scenarioOf(t, o),
    // A trajectory exported by loopbench already names an imported model: it is not prefixed twice.
    model: modelOf(t).startsWith('imported:') ? modelOf(t) : `imported:${modelOf(t)}`,
    // The original agent's limits are not in the format: every brake is unknown (off here).
    limits: { max_steps: null, max_cost_usd: null, timeout_s: null, max_repeat: null, max_tokens: null, max_calls: null, max_rounds: null },
    reflection: 'off',
    max_reflections: 0,
    context: 'full',
    price: o.price ?? UNKNOWN_PRICE,
    prompt_cache: false,
    max_output_tokens: 0,
    seed: 0,
    repeat: o.repeat,
    agent: {},
  };
}

const textOf = (m: AtifStep['message']): string => (typeof m === 'string' ? m : m ? JSON.stringify(m) : '');

function stopOf(t: AtifTrajectory, last: AtifStep | undefined): { reason: StopReason; detail: string } {
  const said = t.extra?.stop_reason;
  if (typeof said === 'string' && (STOP_REASONS as readonly string[]).includes(said))
    return { reason: said as StopReason, detail: `imported: the trajectory's extra.stop_reason says ${said}` };
  if (last && !last.tool_calls?.length) return { reason: 'done', detail: 'imported: the last agent step answered without a tool call' };
  return { reason: 'imported', detail: 'imported: the trajectory ends after a tool call; why it stopped is not recorded' };
}

function successOf(t: AtifTrajectory, o: AtifImportOptions): boolean | null {
  if (o.success !== undefined) return o.success;
  const s = t.extra?.success;
  return typeof s === 'boolean' ? s : null;
}


export function fromAtif(t: AtifTrajectory, o: AtifImportOptions): ImportedRun {
  // A trajectory loopbench exported carries its own records: the round trip is lossless.
  const exported = o.scenario === undefined && o.success === undefined ? exportedRecords(t) : null;
  if (exported) return { ...exported, notes: [] };

  const settings = settingsFor(t, o);
  const runId = `${settings.scenario}_${t.session_id}`;
  const configId = `${settings.scenario} ${settings.model}`;
  const agentSteps = t.steps.filter((s) => s.source === 'agent');
  const notes = new Set<string>();
  const first = ms(t.steps[0]?.timestamp);
  let prev = first;
  let cumIn = 0;
  let cumOut = 0;
  let cumCost = 0;
  let cached = 0;
  const steps: StepRecord[] = [];
  for (const s of t.steps) {
    const at = ms(s.timestamp);
    if (s.source !== 'agent') {
      prev = at ?? prev;
      continue;
    }
    const m = s.metrics ?? {};
    if (!s.metrics) notes.add('agent steps without metrics are recorded with 0 tokens and $0');
    const input = m.prompt_tokens ?? 0;
    const output = m.completion_tokens ?? 0;
    const hit = Math.min(m.cached_tokens ?? 0, input);
    let cost = m.cost_usd;
    if (cost === undefined) {
      cost = o.price ? callCost(o.price, input, output, hit) : 0;
      if (input + output > 0) notes.add(o.price ? `steps with tokens but no cost_usd are priced as ${o.price.model} (${o.price.model === 'custom' ? 'given rates' : 'pricing table'})` : 'steps with tokens but no cost_usd and no known price are recorded at $0');
    }
    cumIn += input;
    cumOut += output;
    cumCost += cost;
    cached += hit;
    const calls = s.tool_calls ?? [];
    const latency = at !== null && prev !== null ? Math.max(0, at - prev) : 0;
    if (at === null) notes.add('steps without timestamps have latency 0');
    if (s.extra?.[ARGUMENTS_UNKNOWN]) notes.add('calls logged with tool names but not their arguments have no action fingerprint (spin cannot be derived from them)');
    prev = at ?? prev;
    steps.push({
      run_id: runId,
      config_id: configId,
      scenario: settings.scenario,
      step: steps.length + 1,
      round: 0,
      role: 'act',
      call: steps.length + 1,
      input_tokens: input,
      output_tokens: output,
      cached_tokens: hit,
      cum_input_tokens: cumIn,
      cum_output_tokens: cumOut,
      cost_usd: cost,
      cum_cost_usd: cumCost,
      latency_ms: latency,
      elapsed_ms: at !== null && first !== null ? at - first : 0,
      retries: 0,
      action: calls.length ? calls.map((c) => c.function_name).join('|') : null,
      fingerprint: calls.length && !s.extra?.[ARGUMENTS_UNKNOWN] ? calls.map((c) => fingerprint(c.function_name, c.arguments)).join('|') : null,
      error: null,
      settings,
    });
  }
  const last = agentSteps.at(-1);
  const stop = stopOf(t, last);
  const subagents = t.steps.flatMap((s) => (s.observation?.results ?? []).flatMap((r) => (r.subagent_trajectory_ref ?? []).map((x) => x.session_id)));
  if (subagents.length) notes.add('subagent trajectories are referenced, not added to their parent run (import them as runs of their own)');
  const stamps = t.steps.map((s) => s.timestamp).filter((x): x is string => Boolean(x));
  const run: RunRecord = {
    run_id: runId,
    config_id: configId,
    scenario: settings.scenario,
    // One model call per agent step, tools in between: a ReAct-shaped loop as far as the records go,
    // so what-if limits replay over it as over a built-in ReAct run. The agent's own name is kept in extra.
    agent: 'react',
    settings,
    stop_reason: stop.reason,
    stop_detail: stop.detail,
    stop_step: steps.length,
    steps: steps.length,
    calls: steps.length,
    rounds: 0,
    input_tokens: cumIn,
    output_tokens: cumOut,
    cached_tokens: cached,
    cost_usd: cumCost,
    elapsed_ms: steps.at(-1)?.elapsed_ms ?? 0,
    answer: last && !last.tool_calls?.length ? textOf(last.message) : null,
    success: successOf(t, o),
    started_at: stamps[0] ?? '',
    finished_at: stamps.at(-1) ?? '',
    extra: { imported: { format: t.schema_version, session_id: t.session_id, agent: t.agent.name, agent_version: t.agent.version ?? null, ...(subagents.length ? { subagents } : {}) } },
  };
  return { run, steps, notes: [...notes] };
}
