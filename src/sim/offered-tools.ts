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

/**
 * The coding agents' own shell tools (Claude Code's Bash, Codex's exec_command and shell) and how each
 * takes a command line. Offered one, the sim does its actions through it, as a shell command that does
 * the action — the client runs it in its own shell — rather than writing the action's arguments (Python
 * source, a search query) into the command string, where the shell would fail on them.
 */
const SHELLS: Record<string, (command: string) => Record<string, unknown>> = {
  Bash: (command) => ({ command }),
  exec_command: (cmd) => ({ cmd }),
  shell: (command) => ({ command: ['bash', '-lc', command] }),
};

const isShell = (spec: ToolSpec) => Object.hasOwn(SHELLS, spec.function.name);

/** A string as one POSIX shell word. */
const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The command line that does an action: run_python's code through python3; any other (scripted) tool's
 * action — whose result the sim's own tools would make up — echoed, so the run goes on with its shape.
 */
export function shellCommand(tool: string, args: Record<string, unknown>): string {
  if (tool === 'run_python' && typeof args.code === 'string') return `python3 -c ${shellQuote(args.code)}`;
  return `echo ${shellQuote(`${tool} ${canonicalJson(args)}`)}`;
}

/** The offered tool that plays the profile's tool `name`: itself when offered, else the client's own
 *  shell tool when it offers one, else an offered tool the profile does not use by name, each of its
 *  unoffered tools on a different one while they last. */
export function toolFor(p: Profile, name: string, offered: ToolSpec[]): ToolSpec {
  const same = offered.find((t) => t.function.name === name);
  if (same) return same;
  const shell = offered.find(isShell);
  if (shell) return shell;
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
  if (spec.function.name !== t.tool && isShell(spec)) return SHELLS[spec.function.name]!(shellCommand(t.tool, filled));
  const schema = spec.function.parameters as Schema | undefined;
  if (!schema) return spec.function.name === t.tool ? filled : {};
  if (spec.function.name === t.tool && conforms(filled, schema)) return filled;
  const texts = strings(filled);
  const hints = {
    args: filled,
    texts: texts.length ? texts : [t.tool],
    key: hash32(`${t.tool}:${canonicalJson(filled)}`),
  };
  const out = synthesize(schema, schema, hints);
  return out && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : {};
}

const varies = (v: unknown): boolean => JSON.stringify(v).includes('{n}') || JSON.stringify(v).includes('{step}');

/**
 * What a user should know when their tools are not the profile's (once per profile and set of tools):
 * each profile tool played on another tool, arguments that do not fit the offered schema, and — the
 * trap — a profile action whose only changing argument has no place in the offered schema, so its
 * repeated calls come out identical and the spin brake stops a run that would not have spun.
 */
export function mappingNotes(p: Profile, offered: ToolSpec[]): string[] {
  if (offered.length === 0) return [];
  const notes: string[] = [];
  for (const name of profileTools(p)) {
    const spec = toolFor(p, name, offered);
    const target = spec.function.name;
    const templates = [...p.actions, ...p.improvements].filter((a) => a.tool === name);
    const schema = spec.function.parameters as { properties?: Record<string, unknown> } | undefined;
    const known = schema?.properties ? new Set(Object.keys(schema.properties)) : null;
    const dropped = known
      ? [...new Set(templates.flatMap((t) => Object.keys(t.args).filter((k) => !known.has(k))))]
      : [];
    const fits = templates.every((t) => !schema || conforms(fillArgs(t.args, 1, 1), schema as Schema));
    const lostVariation = templates.some((t) => {
      const changing = Object.entries(t.args)
        .filter(([, v]) => varies(v))
        .map(([k]) => k);
      return changing.length > 0 && changing.every((k) => dropped.includes(k));
    });
    if (target === name && fits) continue;
    if (target !== name && isShell(spec)) {
      notes.push(
        `${name} is not among your tools: played on your ${target} as a shell command (${name === 'run_python' ? "python3 -c '<code>'" : "echo '<the action>', the sim's own tool being out of reach"})`,
      );
      continue;
    }
    const where = target === name ? `your ${name}` : `${name} is not among your tools: played on your ${target}`;
    const how = fits
      ? ''
      : `, with arguments written to its schema${dropped.length ? ` (${dropped.join(', ')} has no place in it)` : ''}`;
    const trap = lostVariation
      ? `; the argument that changes from call to call (${dropped.join(', ')}) is lost, so repeated calls come out identical and the spin brake may stop runs the profile would not spin`
      : '';
    notes.push(`${target === name ? `${name}'s arguments do not fit ${where}` : where}${how}${trap}`);
  }
  return notes;
}
