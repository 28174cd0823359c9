// A scripted tool: returns canned text of a given size, deterministic in its arguments, so a
// scenario can model "a search returns a 450-token page" without any network.
import { canonicalJson } from '../contracts/fingerprint.ts';
import { draw } from './behaviour.ts';
import type { Dist } from './profile.ts';
import { rng } from './rng.ts';
import { words } from './text.ts';
import type { ToolSpec } from '../contracts/chat.ts';
import type { Tool } from '../contracts/tool.ts';

export interface ScriptedToolOptions {
  spec: ToolSpec;
  resultTokens: Dist;
  /** Optional fixed text placed before the generated body. */
  header?: string;
  /** Status lines after the body: the n-th identical call of a run ends with the n-th (the last repeats). */
  progress?: string[];
  virtualMs: number;
}

/** Distinct argument sets remembered per tool: a sweep's runs ask the same questions step after step. */
const RESULT_CACHE_LIMIT = 1024;

export function scriptedTool(o: ScriptedToolOptions): Tool {
  const name = o.spec.function.name;
  // The result is a pure function of the arguments, so each distinct call is written once.
  const results = new Map<string, string>();
  return {
    spec: o.spec,
    virtualMs: o.virtualMs,
    run: async (args, _signal, call) => {
      const key = canonicalJson(args);
      let text = results.get(key);
      if (text === undefined) {
        const r = rng(name, key);
        const head = o.header ?? `${name} ${key}:`;
        text = `${head}\n${words(r, Math.round(draw(r, o.resultTokens)))}`;
        if (results.size >= RESULT_CACHE_LIMIT) results.clear();
        results.set(key, text);
      }
      if (!o.progress) return text;
      return `${text}\n${o.progress[Math.min((call?.repeat ?? 1) - 1, o.progress.length - 1)]}`;
    },
  };
}
