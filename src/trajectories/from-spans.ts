// The GenAI spans of one trace → runs: one per `invoke_agent` span (or the whole trace when it has
// none), one step per `chat` span in start order, its tokens and model from the standard attributes,
// its actions from the `execute_tool` spans that follow it (or the tool calls in its output messages).
// A loopbench export carries its records on its spans (`loopbench.record`): those come back as they
// were. Pure: rows in, records out.
import { fingerprint, stepActions } from '../contracts/fingerprint.ts';
import type { RunRecord, StepRecord } from '../contracts/records.ts';
import type { Price, Settings } from '../contracts/settings.ts';
import { STOP_REASONS, type StopReason } from '../contracts/stop-reason.ts';
import { RunLedger } from '../meter/ledger.ts';
import { atifArguments } from './atif-schema.ts';
import { importedSettings } from './from-atif.ts';
import type { SpanRow } from './otlp-spans.ts';

export interface SpanRun {
  run: RunRecord;
  steps: StepRecord[];
  /** For repeat numbering: the run's configuration. */
  config: string;
  /** The scenario order of the sweep a loopbench export came from. */
  order?: string[];
  notes: string[];
}

export interface SpanImportOptions {
  scenario?: string;
  price?: Price | ((model: string) => Price | undefined);
  outcomes?: Record<string, boolean | null>;
  /** The next repeat index of a configuration. */
  repeatOf: (config: string) => number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
/** A time in ms as ISO 8601, or undefined when it is none (missing, or beyond what a Date holds). */
const isoTime = (ms: number): string | undefined =>
  Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;

/** Groups a trace's rows into runs: each chat and tool span goes to its nearest invoke_agent span. */
export function runsOfTrace(rows: readonly SpanRow[]): Array<{ root: SpanRow | null; members: SpanRow[] }> {
  const agents = rows.filter((r) => r.role === 'agent');
  if (agents.length === 0) return [{ root: null, members: [...rows] }];
  const byId = new Map(rows.map((r) => [r.span, r]));
  const groups = new Map<SpanRow, SpanRow[]>(agents.map((a) => [a, []]));
  for (const r of rows) {
    if (r.role === 'agent') continue;
    // Up the parent chain through the GenAI spans; where it leaves them, the innermost agent span
    // whose time holds this one (instrumentations put HTTP and framework spans in between).
    let owner: SpanRow | undefined;
    for (let p = byId.get(r.parent), hops = 0; p && hops < 64; p = byId.get(p.parent), hops++) {
      if (p.role === 'agent') {
        owner = p;
        break;
      }
    }
    owner ??=
      agents.filter((a) => a.startMs <= r.startMs && r.startMs <= a.endMs).sort((x, y) => y.startMs - x.startMs)[0] ??
      agents[0]!;
    groups.get(owner)!.push(r);
  }
  return [...groups].map(([root, members]) => ({ root, members }));
}

/** A loopbench export's own records, when every span of the run carries them. */
function exported(root: SpanRow | null, members: readonly SpanRow[]): { run: RunRecord; steps: StepRecord[] } | null {
  const text = root?.a.record;
  if (typeof text !== 'string') return null;
  try {
    const run = JSON.parse(text) as RunRecord;
    if (typeof run.run_id !== 'string' || !run.settings) return null;
    const steps = members
      .filter((m) => m.role === 'chat' && typeof m.a.record === 'string')
      .map((m) => ({ ...(JSON.parse(m.a.record as string) as Omit<StepRecord, 'settings'>), settings: run.settings }))
      .sort((a, b) => a.call - b.call);
    return { run, steps };
  } catch {
    return null;
  }
}

/** Tool calls named in a chat span's output messages (gen_ai.output.messages, parts of type tool_call). */
function outputToolCalls(row: SpanRow): Array<{ name: string; args: string | undefined }> {
  const text = row.a.output_messages;
  if (typeof text !== 'string') return [];
  try {
    const messages = JSON.parse(text) as Array<{
      parts?: Array<{ type?: string; name?: string; arguments?: unknown }>;
    }>;
    return messages.flatMap((m) =>
      (m.parts ?? [])
        .filter((p) => p.type === 'tool_call' && typeof p.name === 'string')
        .map((p) => ({
          name: p.name!,
          args:
            p.arguments === undefined
              ? undefined
              : typeof p.arguments === 'string'
                ? p.arguments
                : JSON.stringify(p.arguments),
        })),
    );
  } catch {
    return [];
  }
}

export function runFromSpans(
  trace: string,
  root: SpanRow | null,
  members: readonly SpanRow[],
  o: SpanImportOptions,
): SpanRun | null {
  const own = o.scenario === undefined ? exported(root, members) : null;
  if (own)
    return {
      ...own,
      config: own.run.config_id,
      notes: [],
      ...(Array.isArray(root?.a.scenarios) ? { order: root.a.scenarios } : {}),
    };
  const chats = members.filter((m) => m.role === 'chat').sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  if (chats.length === 0) return null;
  const tools = members.filter((m) => m.role === 'tool').sort((a, b) => a.startMs - b.startMs);
  const notes = new Set<string>();
  const model = str(chats.find((c) => str(c.a.model))?.a.model) ?? str(root?.a.model) ?? 'unknown';
  const scenario =
    o.scenario ??
    str(root?.a.scenario) ??
    str(root?.a.agent) ??
    str(chats[0]!.a.agent) ??
    root?.service ??
    chats[0]!.service ??
    'otlp';
  const conversation = str(root?.a.conversation) ?? str(chats[0]!.a.conversation);
  const session = conversation ?? (root ? `${trace}-${root.span}` : trace);
  const config = `${scenario}\u0000${model}`;
  const price = typeof o.price === 'function' ? o.price(model) : o.price;
  const settings: Settings = importedSettings(scenario, model, price, o.repeatOf(config));
  const runId = `${scenario}_${session}`;
  const configId = `${scenario} ${settings.model}`;
  const t0 = Math.min(root?.startMs ?? Infinity, chats[0]!.startMs);
  // Each tool span belongs to the last model call that began before it.
  const toolsOf = new Map<SpanRow, SpanRow[]>();
  for (const t of tools) {
    const call = [...chats].reverse().find((c) => c.startMs <= t.startMs);
    if (call) toolsOf.set(call, [...(toolsOf.get(call) ?? []), t]);
  }
  const ledger = new RunLedger(runId, configId, settings);
  let clock = 0;
  const steps: StepRecord[] = chats.map((c) => {
    const input = num(c.a.input) ?? 0;
    const output = num(c.a.output) ?? 0;
    const hit = Math.min(num(c.a.cached) ?? 0, input);
    if (num(c.a.input) === undefined) notes.add('chat spans without token counts are recorded with 0 tokens');
    // A span without a cost is priced by the ledger at the run's price, or recorded at $0 without one.
    const cost = num(c.a.cost) ?? (price ? undefined : 0);
    if (num(c.a.cost) === undefined && input + output > 0)
      notes.add(
        price
          ? `spans without a cost are priced as ${price.model} (${price.model === 'custom' ? 'given rates' : 'pricing table'})`
          : 'spans without a cost and without a known price are recorded at $0',
      );
    const calls =
      toolsOf
        .get(c)
        ?.map((t) => ({ name: str(t.a.tool) ?? t.name.replace(/^execute_tool /, ''), args: str(t.a.args) })) ??
      outputToolCalls(c);
    if (calls.some((x) => x.args === undefined))
      notes.add('tool calls without their arguments have no action fingerprint (spin cannot be derived from them)');
    clock = Math.max(clock, Math.round(c.endMs - t0));
    // The optional usage details: parts of input and output, when reported.
    const reasoning = num(c.a.reasoning);
    // The call's time: its span's start (the per-day spend tables file the call under its day).
    const at = isoTime(c.startMs);
    const cacheWrite = num(c.a.cacheWrite);
    return ledger.record({
      step: ledger.totals.calls + 1,
      role: 'act',
      usage: {
        prompt_tokens: input,
        completion_tokens: output,
        cached_tokens: hit,
        ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
        ...(reasoning ? { reasoning_tokens: reasoning } : {}),
      },
      ...(cost !== undefined ? { costUsd: cost } : {}),
      latencyMs: Math.max(0, Math.round(c.endMs - c.startMs)),
      elapsedMs: clock,
      ...stepActions(
        calls.map((x) => ({
          tool: x.name,
          fingerprint: x.args === undefined ? null : fingerprint(x.name, atifArguments(x.args)),
        })),
      ),
      error: c.error,
      ...(at ? { at } : {}),
    });
  });
  const last = chats.at(-1)!;
  const lastCalls = steps.at(-1)!.action !== null;
  const said = str(root?.a.stopReason);
  const finish = Array.isArray(last.a.finish) ? last.a.finish : [];
  const stop: { reason: StopReason; detail: string } =
    said && (STOP_REASONS as readonly string[]).includes(said)
      ? { reason: said as StopReason, detail: `imported: the trace's loopbench.stop_reason says ${said}` }
      : root?.error
        ? { reason: 'error', detail: `imported: the agent span ended in an error (${root.error})` }
        : !lastCalls && !finish.includes('tool_calls')
          ? { reason: 'done', detail: 'imported: the last model call answered without a tool call' }
          : {
              reason: 'imported',
              detail: 'imported: the trace ends after a tool call; why it stopped is not recorded',
            };
  const successSaid = o.outcomes?.[session] ?? o.outcomes?.[trace];
  const success =
    successSaid !== undefined ? successSaid : typeof root?.a.success === 'boolean' ? root.a.success : null;
  const iso = (msValue: number) => (Number.isFinite(msValue) ? new Date(msValue).toISOString() : '');
  const run = ledger.runRecord({
    agent: 'react',
    stop: { ...stop, step: steps.length },
    elapsedMs: clock,
    answer: null,
    success,
    started_at: iso(t0),
    finished_at: iso(Math.max(root?.endMs ?? -Infinity, last.endMs)),
    extra: {
      imported: { format: 'otlp', session_id: session, trace_id: trace, agent: str(root?.a.agent) ?? scenario },
    },
  });
  return { run, steps, config, notes: [...notes] };
}
