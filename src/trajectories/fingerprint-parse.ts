// A step's fingerprint back into its actions: `run_python({"code":"…"})|search({"q":"x"})` →
// [{ tool, args }]. The arguments are canonical JSON, or the raw text when the model's arguments
// did not parse; a scan that honours JSON strings finds where each action ends. stepActions joins them.
import { ACTIONS_JOINED_BY } from '../contracts/fingerprint.ts';

export interface ParsedAction {
  tool: string;
  args: Record<string, unknown> | string;
}

/** The index just past the JSON value starting at `i` (object, array or string), or -1. */
function endOfJson(text: string, i: number): number {
  let depth = 0;
  let inString = false;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (inString) {
      if (c === '\\') j++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return j + 1;
      }
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

export function splitFingerprint(fp: string): ParsedAction[] {
  const out: ParsedAction[] = [];
  let i = 0;
  while (i < fp.length) {
    const open = fp.indexOf('(', i);
    if (open < 0) break;
    const tool = fp.slice(i, open);
    const end = endOfJson(fp, open + 1);
    if (end > 0 && fp[end] === ')' && (end + 1 === fp.length || fp[end + 1] === ACTIONS_JOINED_BY)) {
      const value = JSON.parse(fp.slice(open + 1, end));
      out.push({
        tool,
        args: value && typeof value === 'object' && !Array.isArray(value) ? value : JSON.stringify(value),
      });
      i = end + 2;
      continue;
    }
    // Raw (unparsed) arguments: up to the next `)|` or the final `)`.
    const next = fp.indexOf(`)${ACTIONS_JOINED_BY}`, open + 1);
    const close = next >= 0 ? next : fp.lastIndexOf(')');
    out.push({ tool, args: fp.slice(open + 1, close) });
    i = close + 2;
  }
  return out;
}
