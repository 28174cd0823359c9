// Parsing sweep values from flags: lists (`12,30`), ranges (`5..30:5`) and `off`.
import { UsageError } from '../contracts/errors.ts';

export interface NumberRule {
  flag: string;
  integer?: boolean;
  min?: number;
  /** Values must be strictly above this. */
  above?: number;
  max?: number;
  /** Whether `off` (brake disabled → null) is accepted. */
  off?: boolean;
  /** A flag that takes one value, not a list. */
  single?: boolean;
}

function parseNumber(token: string, rule: NumberRule): number {
  const n = Number(token);
  const kind = rule.integer ? 'a whole number' : 'a number';
  if (token.trim() === '' || !Number.isFinite(n) || (rule.integer && !Number.isInteger(n)))
    throw new UsageError(`${rule.flag}: '${token}' is not ${kind}${accepted(rule)}`);
  if (rule.min !== undefined && n < rule.min)
    throw new UsageError(`${rule.flag}: ${token} is below the minimum ${rule.min}${accepted(rule)}`);
  if (rule.above !== undefined && n <= rule.above)
    throw new UsageError(`${rule.flag}: ${token} is not above ${rule.above}${accepted(rule)}`);
  if (rule.max !== undefined && n > rule.max)
    throw new UsageError(`${rule.flag}: ${token} is above the maximum ${rule.max}${accepted(rule)}`);
  return n;
}

function accepted(rule: NumberRule): string {
  const bounds = [
    rule.min !== undefined ? `≥ ${rule.min}` : '',
    rule.above !== undefined ? `> ${rule.above}` : '',
    rule.max !== undefined ? `≤ ${rule.max}` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const range = bounds ? ` ${bounds}` : '';
  if (rule.single) return ` (accepted: ${rule.integer ? 'a whole number' : 'a number'}${range})`;
  return ` (accepted: ${rule.integer ? 'whole numbers' : 'numbers'}${range}, lists like 12,30, ranges like 5..30:5${rule.off ? ', or off' : ''})`;
}

/** `12,30`, `5..30:5`, `10..100:10,off` → [12, 30] etc. Duplicates are dropped, order kept. */
export function parseNumberList(text: string, rule: NumberRule): Array<number | null> {
  const out: Array<number | null> = [];
  for (const raw of text.split(',')) {
    const token = raw.trim();
    if (token === 'off') {
      if (!rule.off) throw new UsageError(`${rule.flag}: 'off' is not accepted here${accepted(rule)}`);
      out.push(null);
      continue;
    }
    const range = /^(.+?)\.\.(.+?)(?::(.+))?$/.exec(token);
    if (range) {
      const from = parseNumber(range[1]!, rule);
      const to = parseNumber(range[2]!, rule);
      const by =
        range[3] === undefined ? 1 : parseNumber(range[3], { ...rule, min: undefined, above: 0, max: undefined });
      if (to < from)
        throw new UsageError(`${rule.flag}: range '${token}' runs backwards (write ${range[2]}..${range[1]})`);
      if ((to - from) / by > 10_000) throw new UsageError(`${rule.flag}: range '${token}' has more than 10,000 values`);
      for (let v = from; v <= to + 1e-9; v += by) out.push(Number(v.toFixed(10)));
      continue;
    }
    out.push(parseNumber(token, rule));
  }
  if (out.length === 0) throw new UsageError(`${rule.flag}: no values given${accepted(rule)}`);
  return [...new Set(out)];
}

export function parseChoiceList<T extends string>(
  text: string,
  flag: string,
  choices: readonly T[] | ((v: string) => boolean),
): T[] {
  const out = text.split(',').map((s) => s.trim());
  for (const v of out) {
    const ok = typeof choices === 'function' ? choices(v) : (choices as readonly string[]).includes(v);
    if (!ok)
      throw new UsageError(
        `${flag}: '${v}' is not accepted${typeof choices === 'function' ? '' : ` (accepted: ${choices.join(', ')})`}`,
      );
  }
  return [...new Set(out)] as T[];
}

/** A flag that takes exactly one number. */
export function parseOne(text: string, flag: string, rule: Omit<NumberRule, 'flag' | 'off'>): number {
  const v = parseNumberList(text, { flag, single: true, ...rule });
  if (v.length !== 1) throw new UsageError(`${flag}: takes one value, got '${text}'`);
  return v[0]!;
}
