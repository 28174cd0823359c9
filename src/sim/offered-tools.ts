// The sim calls only the tools a request offers, as a provider's model does. A profile's actions
// name the tools of its own scenarios; offered other tools (an agent under test brings its own), the
// sim maps each of its tools onto an offered one and writes arguments valid against that tool's
// schema. Fixed actions still write the same arguments each time and varied ones different
// arguments, so stuck, cycle, recursive-verify and perfectionist profiles keep their shape.
import { canonicalJson } from '../contracts/fingerprint.ts';
import type { ChatRequest, ToolSpec } from '../contracts/chat.ts';
import { fillArgs } from './behaviour.ts';
import { conforms, synthesize, type Schema } from './json-schema.ts';
import type { ActionTemplate, Profile } from './profile.ts';
import { hash32 } from './rng.ts';

export interface Offer {
  /** The tools the sim may call: none when none are offered or `tool_choice` is `none`; only the named one when one is named. */
  tools: ToolSpec[];
  /** `tool_choice` is `required` or names a function: the answer must be a tool call. */
  mustCall: boolean;
}

export function offerOf(request: ChatRequest): Offer {
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  if (tools.length === 0 || choice === 'none') return { tools: [], mustCall: false };
  if (typeof choice === 'object') {
    const named = tools.filter((t) => t.function.name === choice.function.name);
    return { tools: named, mustCall: named.length > 0 };
  }
  return { tools, mustCall: choice === 'required' };
}

const profileTools = (p: Profile) => [...new Set([...p.actions, ...p.improvements].map((a) => a.tool))];

/** The offered tool that plays the profile's tool `name`: itself when offered, else an offered tool
 *  the profile does not use by name, each of its unoffered tools on a different one while they last. */
export function toolFor(p: Profile, name: string, offered: ToolSpec[]): ToolSpec {
  const same = offered.find((t) => t.function.name === name);
  if (same) return same;
  const own = profileTools(p);
  const free = offered.filter((t) => !own.includes(t.function.name));
  const pool = free.length ? free : offered;
  const unmatched = own.filter((t) => !offered.some((o) => o.function.name === t));
  return pool[Math.max(0, unmatched.indexOf(name)) % pool.length]!;
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

/** The action's arguments for `spec`: the profile's own when they fit, else written to the schema. */
export function argumentsFor(t: ActionTemplate, n: number, step: number, spec: ToolSpec): Record<string, unknown> {
  const filled = fillArgs(t.args, n, step) as Record<string, unknown>;
  const schema = spec.function.parameters as Schema | undefined;
  if (!schema) return spec.function.name === t.tool ? filled : {};
  if (spec.function.name === t.tool && conforms(filled, schema)) return filled;
  const texts = strings(filled);
  const hints = { args: filled, texts: texts.length ? texts : [t.tool], key: hash32(`${t.tool}:${canonicalJson(filled)}`) };
  const out = synthesize(schema, schema, hints);
  return out && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : {};
}
