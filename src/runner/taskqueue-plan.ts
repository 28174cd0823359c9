// The task queue's options: its sweepable knobs (→ Grid.agent), its round limit, per-role models, and
// the human controls (--trace, --pause-at, --resume-state). Only valid with a taskqueue scenario.
// The flags themselves are declared in src/cli/taskqueue-options.ts.
import { QueueState } from '../agents/queue/state.ts';
import { contextWindow, type PricingTable } from '../meter/pricing.ts';
import { findPrice } from '../meter/model-price.ts';
import { pricedModelOf, validateModelSpec, type ModelTransport } from '../models/factory.ts';
import type { Price, Grid } from '../contracts/settings.ts';
import { parseChoiceList, parseNumberList } from './values.ts';
import { TASKQUEUE_ROLES, type Scenario, type TaskqueueRole } from '../scenario/schema.ts';
import { loadYamlFile } from '../scenario/yaml-file.ts';
import { UsageError } from '../contracts/errors.ts';

/** Optional so code that builds RunOptions by hand need not know them; absent means the default. */
export interface TaskqueueFlags {
  queueCap?: string;
  dedup?: string;
  anchor?: string;
  maxResultTokens?: string;
  compressAt?: string;
  roleModel?: string;
  trace?: boolean;
  pauseAt?: string;
  resumeState?: string;
}

/** Flag defaults; a flag changed from its default with no taskqueue scenario in the sweep is an error. */
export const TASKQUEUE_FLAG_DEFAULTS = {
  queueCap: 'off',
  dedup: 'off',
  anchor: 'off',
  maxResultTokens: 'off',
  compressAt: 'auto',
} as const;
const DEFAULTS = TASKQUEUE_FLAG_DEFAULTS;
type Defaulted = keyof typeof DEFAULTS;
const flag = (o: TaskqueueFlags, k: Defaulted): string => o[k] ?? DEFAULTS[k];
/** Used for `--compress-at auto` when the priced model has no context window in the table. */
const FALLBACK_WINDOW = 128_000;

const hasTaskqueue = (scenarios: Scenario[]) => scenarios.some((s) => s.agent === 'taskqueue');

function requireTaskqueue(o: TaskqueueFlags, scenarios: Scenario[]): void {
  if (hasTaskqueue(scenarios)) return;
  const given: string[] = [];
  for (const [key, name] of [
    ['queueCap', '--queue-cap'],
    ['dedup', '--dedup'],
    ['anchor', '--anchor'],
    ['maxResultTokens', '--max-result-tokens'],
    ['compressAt', '--compress-at'],
  ] as const)
    if (flag(o, key) !== DEFAULTS[key]) given.push(name);
  if (o.roleModel !== undefined) given.push('--role-model');
  if (o.trace) given.push('--trace');
  if (o.pauseAt !== undefined) given.push('--pause-at');
  if (o.resumeState !== undefined) given.push('--resume-state');
  if (given.length) throw new UsageError(`${given.join(', ')}: only for taskqueue scenarios (none is in this sweep)`);
}

function compressValues(text: string, window: number): Array<number | null> {
  return text.split(',').flatMap((raw) => {
    const t = raw.trim();
    if (t === 'auto') return [Math.floor(window / 2)];
    return parseNumberList(t, { flag: '--compress-at', integer: true, min: 1, off: true });
  });
}

/** The task queue's dimensions of the sweep grid; empty when no taskqueue scenario runs. */
export function taskqueueGrid(
  o: TaskqueueFlags,
  scenarios: Scenario[],
  price: Price,
  table: PricingTable,
): Grid['agent'] {
  requireTaskqueue(o, scenarios);
  if (!hasTaskqueue(scenarios)) return {};
  const window = contextWindow(table, price.model) ?? FALLBACK_WINDOW;
  return {
    queue_cap: parseNumberList(flag(o, 'queueCap'), { flag: '--queue-cap', integer: true, min: 1, off: true }),
    dedup: parseNumberList(flag(o, 'dedup'), { flag: '--dedup', min: 0.01, max: 1, off: true }),
    anchor: parseChoiceList(flag(o, 'anchor'), '--anchor', ['on', 'off'] as const).map((v) => v === 'on'),
    max_result_tokens: parseNumberList(flag(o, 'maxResultTokens'), {
      flag: '--max-result-tokens',
      integer: true,
      min: 1,
      off: true,
    }),
    compress_at: [...new Set(compressValues(flag(o, 'compressAt'), window))],
  };
}

/** `execute=sim:x,create=openai:gpt-4o` → per-role model specs, each checked. */
export function parseRoleModels(
  text: string | undefined,
  transport?: ModelTransport,
): Partial<Record<TaskqueueRole, string>> | undefined {
  if (text === undefined) return undefined;
  const out: Partial<Record<TaskqueueRole, string>> = {};
  for (const part of text.split(',').map((s) => s.trim())) {
    const eq = part.indexOf('=');
    const role = part.slice(0, eq) as TaskqueueRole;
    const spec = part.slice(eq + 1);
    if (eq < 1 || !spec)
      throw new UsageError(`--role-model: '${part}' is not role=model (e.g. execute=sim:babyagi-converging)`);
    if (!TASKQUEUE_ROLES.includes(role))
      throw new UsageError(`--role-model: unknown role '${role}' (accepted: ${TASKQUEUE_ROLES.join(', ')})`);
    if (out[role]) throw new UsageError(`--role-model: role '${role}' is named twice`);
    validateModelSpec(spec, transport);
    out[role] = spec;
  }
  return out;
}

/** Prices for per-role `openai:<name>` models found in the pricing table; others are billed at the run's price. */
export function modelPrices(specs: string[], table: PricingTable, file: string): Record<string, Price> {
  const out: Record<string, Price> = {};
  for (const spec of specs) {
    const name = pricedModelOf(spec);
    const price = name === undefined ? undefined : findPrice(table, name, file);
    if (price) out[spec] = price;
  }
  return out;
}

export function roleModelSpecs(
  scenarios: Scenario[],
  fromFlag: Partial<Record<TaskqueueRole, string>> | undefined,
  transport?: ModelTransport,
): string[] {
  const specs = scenarios.flatMap((s) => (s.agent === 'taskqueue' ? Object.values(s.models) : []));
  for (const spec of specs) validateModelSpec(spec, transport);
  return [...new Set([...specs, ...Object.values(fromFlag ?? {})])];
}

export function parsePauseAt(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const v = parseNumberList(text, { flag: '--pause-at', integer: true, min: 1 });
  if (v.length !== 1) throw new UsageError(`--pause-at: takes one round, got '${text}'`);
  return v[0]!;
}

/** A state file for the one taskqueue scenario the sweep runs. */
export function loadResumeState(file: string | undefined, scenarios: Scenario[]): QueueState | undefined {
  if (file === undefined) return undefined;
  const state = loadYamlFile(file, QueueState);
  if (scenarios.length !== 1 || scenarios[0]!.id !== state.scenario)
    throw new UsageError(
      `--resume-state: ${file} holds the state of scenario '${state.scenario}'; run it with --scenario ${state.scenario} alone`,
    );
  return state;
}
