// The table of brakes: one row per limit a sweep can set. The CLI flags, the sweep grid and its
// labels, the budgets-file fields, meta.json's schema of the grid and the CSV columns are all derived
// from it (the brake itself is made by src/brakes/index.ts, keyed by the same `key`).
import { z } from 'zod';

/** What values a limit takes besides `off`. */
export interface LimitRule {
  integer: boolean;
  min?: number;
  /** Values must be strictly above this. */
  above?: number;
  max?: number;
}

export interface LimitDef {
  /** Key in Settings.limits, column in runs.csv and summary.csv. */
  key: string;
  /** The bench flag; its commander attribute and the budgets-file field are derived from it. */
  flag: string;
  /** Short name in configuration labels (`steps=12`). */
  label: string;
  help: string;
  rule: LimitRule;
  /** Flag text when not given: a value or `off`. */
  default: string;
  /** Whether the brake alone bounds a run's length (a sweep needs one in every configuration). */
  bounds: boolean;
  /** A spin detector added after the first results were published: it is left out of a run's
   *  settings, labels and CSV columns while the grid has it off, so sweeps without it keep their
   *  outputs byte for byte. */
  detector?: true;
}

const COUNT: LimitRule = { integer: true, min: 1 };
const AMOUNT: LimitRule = { integer: false, above: 0 };

export const LIMITS = [
  {
    key: 'max_steps',
    flag: '--steps',
    label: 'steps',
    help: 'MAX_STEPS values to sweep: 12,30 or 5..30:5 or off',
    rule: COUNT,
    default: '12',
    bounds: true,
  },
  {
    key: 'max_cost_usd',
    flag: '--max-cost',
    label: 'cost',
    help: 'budget per run in USD (never exceeded: the next call is projected), list or off',
    rule: AMOUNT,
    default: '0.5',
    bounds: true,
  },
  {
    key: 'timeout_s',
    flag: '--timeout',
    label: 'timeout',
    help: 'wall-clock limit per run in seconds (virtual clock for simulated models), list or off',
    rule: AMOUNT,
    default: '120',
    bounds: true,
  },
  {
    key: 'max_repeat',
    flag: '--max-repeat',
    label: 'repeat',
    help: 'spin detection: how often one action (tool + arguments) may run, list or off',
    rule: COUNT,
    default: '3',
    bounds: false,
  },
  {
    key: 'max_tokens',
    flag: '--max-tokens',
    label: 'tokens',
    help: 'total tokens (input + output) per run, list or off',
    rule: COUNT,
    default: 'off',
    bounds: true,
  },
  {
    key: 'max_calls',
    flag: '--max-calls',
    label: 'calls',
    help: 'model calls per run, list or off',
    rule: COUNT,
    default: 'off',
    bounds: true,
  },
  {
    key: 'max_rounds',
    flag: '--max-rounds',
    label: 'rounds',
    help: 'task queue: rounds per run (execute → create → prioritize), list or off',
    rule: COUNT,
    default: 'off',
    bounds: true,
  },
  {
    key: 'max_cycle',
    flag: '--max-cycle',
    label: 'cycle',
    help: 'spin detection: block the second full repetition of a cycle of actions (with the same results) of period ≤ K; list or off',
    rule: COUNT,
    default: 'off',
    bounds: false,
    detector: true,
  },
  {
    key: 'max_same_error',
    flag: '--max-same-error',
    label: 'same_error',
    help: 'spin detection: block a tool whose last N calls all failed with the same error; list or off',
    rule: COUNT,
    default: 'off',
    bounds: false,
    detector: true,
  },
  {
    key: 'near_duplicate',
    flag: '--near-duplicate',
    label: 'near_dup',
    help: "spin detection: block an action whose arguments are this similar (0..1, Levenshtein on canonical JSON) to an earlier call's of the same tool; list or off",
    rule: { integer: false, above: 0, max: 1 },
    default: 'off',
    bounds: false,
    detector: true,
  },
] as const satisfies readonly LimitDef[];

export type LimitKey = (typeof LIMITS)[number]['key'];
type DetectorKey = Extract<(typeof LIMITS)[number], { detector: true }>['key'];
type CoreKey = Exclude<LimitKey, DetectorKey>;

/** Each limit is a number or null (brake off); a detector is absent while off (see LimitDef.detector). */
export type Limits = { [K in CoreKey]: number | null } & { [K in DetectorKey]?: number | null };

/** The values of each limit a sweep varies; a detector is absent while off. */
export type LimitGrid = { [K in CoreKey]: Array<number | null> } & { [K in DetectorKey]?: Array<number | null> };

/** The seed's limits: every brake at its default, the detectors absent (off). */
export const SEED_LIMITS = Object.fromEntries(
  LIMITS.flatMap((d: LimitDef) => (d.detector ? [] : [[d.key, d.default === 'off' ? null : Number(d.default)]])),
) as Limits;

type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
type OptionOf<F extends string> = F extends `--${infer R}` ? Camel<R> : never;
/** The limit flags as text (`12,30`, `5..30:5`, `off`), under commander's attribute names; absent = the default. */
export type LimitOptions = { [D in (typeof LIMITS)[number] as OptionOf<D['flag']>]?: string };

/** `--max-cost` → `maxCost` (commander's attribute name). */
export const optionName = (d: LimitDef) => d.flag.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
/** `--max-cost` → `max_cost` (the budgets file's field). */
export const fieldName = (d: LimitDef) => d.flag.slice(2).replaceAll('-', '_');

/** The zod schema of one value a rule accepts (budgets files, meta.json). */
export function limitValue(r: LimitRule): z.ZodNumber {
  let v = r.integer ? z.number().int() : z.number();
  if (r.min !== undefined) v = v.min(r.min);
  if (r.above !== undefined) v = v.gt(r.above);
  if (r.max !== undefined) v = v.max(r.max);
  return v;
}

/** One limit's swept values in meta.json: at least one, each a value of its rule or null (off). */
type LimitValues = z.ZodArray<z.ZodNullable<z.ZodNumber>>;
/** The grid's limits as a zod shape, keyed as LimitGrid is: a detector's values may be absent (off). */
export type LimitGridShape = { [K in CoreKey]: LimitValues } & { [K in DetectorKey]: z.ZodOptional<LimitValues> };

/** Each row's values checked by its rule, for the grid in meta.json's schema (src/results/meta.ts). */
export function limitGridShape(): LimitGridShape {
  const values = (d: LimitDef) => z.array(limitValue(d.rule).nullable()).min(1);
  // Object.fromEntries types its keys as plain strings; they are the rows' own keys, which LimitGridShape names.
  return Object.fromEntries(
    LIMITS.map((d: LimitDef) => [d.key, d.detector ? values(d).optional() : values(d)]),
  ) as LimitGridShape;
}

/** A limit's value in a CSV cell or a label. */
export const showLimit = (v: number | null | undefined) => (v === null || v === undefined ? 'off' : v);
