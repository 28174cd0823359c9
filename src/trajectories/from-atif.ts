// One ATIF trajectory → one loopbench run: a StepRecord per agent step (one model call each), a
// RunRecord for the whole. Steps go in one at a time (AtifRunBuilder), so a trajectory of a million
// steps is never held whole. Pure: no files, no clock. What a trajectory does not say (the original
// agent's limits, its seed) is recorded as unknown, never guessed; what it says that cannot be true
// (time running backwards, step ids repeated, totals the steps do not add up to) is said per file.
import { fingerprint, stepActions } from '../contracts/fingerprint.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import { UNKNOWN_PRICE, type Price, type Settings } from '../contracts/settings.ts';
import { STOP_REASONS, type StopReason } from '../contracts/stop-reason.ts';
import { RunLedger } from '../meter/ledger.ts';
import { IsoStamps } from '../contracts/iso-stamps.ts';
import { ARGUMENTS_UNKNOWN, NO_CLOCK, type AtifHeader, type AtifStep, type AtifTrajectory } from './atif-schema.ts';
import { LOOPBENCH_KEY, type ExportedStep } from './exported.ts';

export interface AtifImportOptions {
  /** The scenario every run is filed under (default: the agent's name). */
  scenario?: string;
  /** Prices a step that has tokens but no cost_usd; also the run's recorded price. Undefined: unknown. */
  price?: Price;
  /** Success from a side file, by session_id; overrides what the trajectory says. */
  success?: boolean | null;
  /** 1-based index of this run within its configuration (plan order for the reports). */
  repeat: number;
  /** The model the first agent step names (a first pass found it), when the agent names none. */
  firstStepModel?: string | null;
}

export interface ImportedRun {
  run: RunRecord;
  steps: StepRecord[];
  /** What the import had to assume, one short sentence each (shown once per batch). */
  notes: string[];
  /** What the trajectory says that cannot be right, one sentence each (shown per file). */
  problems: string[];
}

/** The model a run used: the agent's default, else the first agent step that names one. */
export function modelOf(t: AtifHeader, firstStepModel?: string | null): string {
  return (
    t.agent.model_name ??
    firstStepModel ??
    t.steps?.find((s) => s.source === 'agent' && s.model_name)?.model_name ??
    'unknown'
  );
}

/** The scenario a run is filed under: the flag, else the trajectory's own `extra.scenario`, else its agent's name. */
export function scenarioOf(t: AtifHeader, o: Pick<AtifImportOptions, 'scenario'>): string {
  const own = t.extra?.scenario;
  return o.scenario ?? (typeof own === 'string' && own ? own : t.agent.name);
}

function settingsFor(t: AtifHeader, model: string, o: AtifImportOptions): Settings {
  return importedSettings(scenarioOf(t, o), model, o.price, o.repeat);
}

/** The settings of an imported run: its scenario and model; the original agent's limits unknown. */
export function importedSettings(scenario: string, model: string, price: Price | undefined, repeat: number): Settings {
  return {
    scenario,
    // A trajectory exported by loopbench already names an imported model: it is not prefixed twice.
    model: model.startsWith('imported:') ? model : `imported:${model}`,
    // The original agent's limits are not in the format: every brake is unknown (off here).
    limits: {
      max_steps: null,
      max_cost_usd: null,
      timeout_s: null,
      max_repeat: null,
      max_tokens: null,
      max_calls: null,
      max_rounds: null,
    },
    reflection: 'off',
    max_reflections: 0,
    context: 'full',
    price: price ?? UNKNOWN_PRICE,
    prompt_cache: false,
    max_output_tokens: 0,
    seed: 0,
    repeat,
    agent: {},
  };
}

const textOf = (m: AtifStep['message']): string => (typeof m === 'string' ? m : m ? JSON.stringify(m) : '');

function stopOf(t: AtifHeader, last: AtifStep | undefined): { reason: StopReason; detail: string } {
  const said = t.extra?.stop_reason;
  if (typeof said === 'string' && (STOP_REASONS as readonly string[]).includes(said))
    return { reason: said as StopReason, detail: `imported: the trajectory's extra.stop_reason says ${said}` };
  if (last && !last.tool_calls?.length)
    return { reason: 'done', detail: 'imported: the last agent step answered without a tool call' };
  return {
    reason: 'imported',
    detail: 'imported: the trajectory ends after a tool call; why it stopped is not recorded',
  };
}

function successOf(t: AtifHeader, o: AtifImportOptions): boolean | null {
  if (o.success !== undefined) return o.success;
  const s = t.extra?.success;
  return typeof s === 'boolean' ? s : null;
}

/** Cost and token totals agree with the steps when they differ by no more than rounding. */
const sameCost = (a: number, b: number) => Math.abs(a - b) <= 1e-9 + 1e-9 * Math.abs(b);

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Builds one run from its trajectory's header and then its steps, in file order. Memory is the
 * running sums and the last agent step, whatever the number of steps.
 */
export class AtifRunBuilder {
  private readonly exported: RunRecord | null;
  private readonly notes = new Set<string>();
  private readonly problems: string[] = [];
  /** The run's totals and records, once its settings are known. */
  private ledger: RunLedger | null = null;
  private first: number | null = null;
  private prev: number | null = null;
  /** The run clock: never runs backwards, whatever the timestamps say. */
  private clock = 0;
  private backwards = { count: 0, firstAt: 0, worstMs: 0 };
  private lastStepId: number | null = null;
  private repeatedIds = { count: 0, first: '' };
  private allSteps = 0;
  private last: AtifStep | undefined;
  private firstStamp = '';
  private lastStamp = '';
  private readonly subagents: string[] = [];
  /** The steps' timestamps read, and written back as `at`, mostly without Date (IsoStamps). */
  private readonly stamps = new IsoStamps();

  constructor(
    private readonly header: AtifHeader,
    private readonly o: AtifImportOptions,
  ) {
    // A trajectory loopbench exported carries its own records: the round trip is lossless.
    this.exported = o.scenario === undefined && o.success === undefined ? exportedRun(header) : null;
    if (this.exported) this.start(this.exported.settings, this.exported.run_id, this.exported.config_id);
    else if (header.agent.model_name || o.firstStepModel !== undefined)
      this.startImported(modelOf(header, o.firstStepModel));
  }

  private start(settings: Settings, runId: string, configId: string): void {
    this.ledger = new RunLedger(runId, configId, settings);
  }

  private startImported(model: string): void {
    const settings = settingsFor(this.header, model, this.o);
    this.start(settings, `${settings.scenario}_${this.header.session_id}`, `${settings.scenario} ${settings.model}`);
  }

  /** The run's id (known once the model is: at once, unless the first agent step has to name it). */
  get id(): string {
    return this.ledger?.runId ?? '';
  }

  /** One step, in order; the step record it makes (agent steps only), or null. */
  add(s: AtifStep): StepRecord | null {
    this.allSteps++;
    this.checkId(s.step_id);
    if (s.timestamp) {
      this.firstStamp ||= s.timestamp;
      this.lastStamp = s.timestamp;
    }
    for (const r of s.observation?.results ?? [])
      for (const x of r.subagent_trajectory_ref ?? []) this.subagents.push(x.session_id);
    const at = this.stamps.parse(s.timestamp);
    this.first ??= at;
    if (s.source !== 'agent') {
      this.tick(at, s.step_id);
      return null;
    }
    if (!this.ledger) this.startImported(modelOf(this.header, s.model_name ?? null));
    const ledger = this.ledger!;
    this.last = s;
    const m = s.metrics ?? {};
    const input = m.prompt_tokens ?? 0;
    const output = m.completion_tokens ?? 0;
    const hit = Math.min(m.cached_tokens ?? 0, input);
    const latency = this.tick(at, s.step_id);
    const own = this.exported ? (s.extra?.[LOOPBENCH_KEY] as ExportedStep | undefined) : undefined;
    if (own && typeof own === 'object') {
      const step = { ...own, settings: ledger.settings };
      ledger.add(step);
      return step;
    }
    const o = this.o;
    if (!s.metrics) this.notes.add('agent steps without metrics are recorded with 0 tokens and $0');
    // A step without cost_usd is priced by the ledger at the run's price (o.price), or recorded at $0 without one.
    const cost = m.cost_usd ?? (o.price ? undefined : 0);
    if (m.cost_usd === undefined && input + output > 0)
      this.notes.add(
        o.price
          ? `steps with tokens but no cost_usd are priced as ${o.price.model} (${o.price.model === 'custom' ? 'given rates' : 'pricing table'})`
          : 'steps with tokens but no cost_usd and no known price are recorded at $0',
      );
    if (at === null && !this.header.extra?.[NO_CLOCK]) this.notes.add('steps without timestamps have latency 0');
    if (s.extra?.[ARGUMENTS_UNKNOWN])
      this.notes.add(
        'calls logged with tool names but not their arguments have no action fingerprint (spin cannot be derived from them)',
      );
    const calls = s.tool_calls ?? [];
    const { action, fingerprint: fp } = stepActions(
      calls.map((c) => ({
        tool: c.function_name,
        fingerprint: s.extra?.[ARGUMENTS_UNKNOWN] ? null : fingerprint(c.function_name, c.arguments),
      })),
    );
    // Fields spelled out, undefined for absent (the ledger reads them so), not spread in: a step each.
    return ledger.record({
      step: ledger.totals.calls + 1,
      role: 'act',
      usage: { prompt_tokens: input, completion_tokens: output, cached_tokens: hit },
      costUsd: cost,
      latencyMs: latency,
      elapsedMs: this.clock,
      action,
      fingerprint: fp,
      at: at !== null ? this.stamps.iso(at, s.timestamp) : undefined,
    });
  }

  /** Moves the run clock to a step's timestamp; returns the time since the previous step (0 when time goes back). */
  private tick(at: number | null, stepId: number): number {
    if (at === null) return 0;
    if (this.prev !== null && at < this.prev) {
      if (this.backwards.count++ === 0) this.backwards.firstAt = stepId;
      this.backwards.worstMs = Math.max(this.backwards.worstMs, this.prev - at);
      return 0;
    }
    const latency = this.prev === null ? 0 : at - this.prev;
    this.prev = at;
    this.clock = Math.max(this.clock, at - this.first!);
    return latency;
  }

  private checkId(id: number): void {
    if (this.lastStepId !== null && id <= this.lastStepId && this.repeatedIds.count++ === 0)
      this.repeatedIds.first = `step_id ${id} follows step_id ${this.lastStepId}`;
    this.lastStepId = this.lastStepId === null ? id : Math.max(this.lastStepId, id);
  }

  /** The run record and what the import has to say of it, once every step is in. */
  result(): Omit<ImportedRun, 'steps'> {
    if (!this.ledger) this.startImported(modelOf(this.header));
    const ledger = this.ledger!;
    this.checkTotals();
    if (this.backwards.count)
      this.problems.push(
        `timestamps go backwards ${this.backwards.count === 1 ? 'once' : `${count(this.backwards.count)} times`} (first at step_id ${this.backwards.firstAt}, by up to ${count(Math.round(this.backwards.worstMs / 1000))} s): those steps are recorded with latency 0 and the run's clock held, never negative`,
      );
    if (this.repeatedIds.count)
      this.problems.push(
        `step ids repeat or go back ${this.repeatedIds.count === 1 ? 'once' : `${count(this.repeatedIds.count)} times`} (${this.repeatedIds.first}): steps are taken in file order`,
      );
    if (this.subagents.length)
      this.notes.add(
        'subagent trajectories are referenced, not added to their parent run (import them as runs of their own)',
      );
    const notes = [...this.notes];
    if (this.exported) return { run: this.exported, notes, problems: this.problems };
    const t = this.header;
    const stop = stopOf(t, this.last);
    const agentSteps = ledger.totals.calls;
    // One model call per agent step, tools in between: a ReAct-shaped loop as far as the records go,
    // so what-if limits replay over it as over a built-in ReAct run. The agent's own name is kept in extra.
    const run = ledger.runRecord({
      agent: 'react',
      stop: { ...stop, step: agentSteps },
      elapsedMs: ledger.totals.elapsedMs,
      answer: this.last && !this.last.tool_calls?.length ? textOf(this.last.message) : null,
      success: successOf(t, this.o),
      started_at: this.firstStamp,
      finished_at: this.lastStamp,
      extra: {
        imported: {
          format: t.schema_version,
          session_id: t.session_id,
          agent: t.agent.name,
          agent_version: t.agent.version ?? null,
          ...(this.subagents.length ? { subagents: this.subagents } : {}),
          ...(t.extra?.[NO_CLOCK] ? { clock: false } : {}),
        },
      },
    });
    return { run, notes, problems: this.problems };
  }

  /** final_metrics against what the steps add up to: a disagreement is said, the steps' figures kept. */
  private checkTotals(): void {
    const f = this.header.final_metrics;
    if (!f) return;
    const sum = this.ledger!.totals;
    const off: string[] = [];
    const ints: Array<[string, number | null | undefined, number]> = [
      ['total_prompt_tokens', f.total_prompt_tokens, sum.inputTokens],
      ['total_completion_tokens', f.total_completion_tokens, sum.outputTokens],
      ['total_cached_tokens', f.total_cached_tokens, sum.cachedTokens],
      ['total_steps', f.total_steps, this.allSteps],
    ];
    for (const [name, said, sum] of ints)
      if (said !== null && said !== undefined && said !== sum) off.push(`${name} ${count(said)} against ${count(sum)}`);
    if (f.total_cost_usd !== null && f.total_cost_usd !== undefined && !sameCost(f.total_cost_usd, sum.costUsd))
      off.push(`total_cost_usd ${f.total_cost_usd} against ${sum.costUsd}`);
    if (off.length)
      this.problems.push(`final_metrics disagree with the steps (${off.join('; ')}): the steps' figures are recorded`);
  }
}

/** The run record a loopbench export carries at its root, if this is one. */
function exportedRun(t: AtifHeader): RunRecord | null {
  const run = t.extra?.[LOOPBENCH_KEY] as RunRecord | undefined;
  return run && typeof run === 'object' && typeof run.run_id === 'string' && run.settings ? run : null;
}

/** A whole trajectory already in memory (tests, chat logs) through the same builder. */
export function fromAtif(t: AtifTrajectory, o: AtifImportOptions): ImportedRun {
  const b = new AtifRunBuilder(t, o);
  const steps: StepRecord[] = [];
  for (const s of t.steps) {
    const r = b.add(s);
    if (r) steps.push(r);
  }
  return { ...b.result(), steps };
}
