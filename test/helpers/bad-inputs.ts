// Bad inputs a user can give `bench`, one per case: the files it needs and the arguments. Shared by
// the in-process table test and the closing list in the report.
import fs from 'node:fs';
import path from 'node:path';
import { listProfiles } from '../../src/sim/profile.ts';
import { listScenarioFiles } from '../../src/scenario/loader.ts';
import { ROOT } from './cli.ts';

/** The shipped ids as the error lists them (they grow as scenarios are added). */
const SHIPPED_SCENARIOS = listScenarioFiles()
  .map((f) => path.basename(f).replace(/\.ya?ml$/, ''))
  .join(', ');

const read = (p: string) => fs.readFileSync(path.join(ROOT, p), 'utf8');
export const GOOD_SCENARIO = read('scenarios/tiny-agent-sum-of-squares.yaml');
export const GOOD_PROFILE = read('data/profiles/tiny-agent.yaml');
export const GOOD_PRICING = read('data/pricing.yaml');

const ALIAS_BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  ...'bcdefghijk'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghijk'[i]}`).join(', ')}]`),
].join('\n');

export interface BadInput {
  name: string;
  /** Files to create in the case's directory: name → content. */
  files?: Record<string, string>;
  /** Arguments; {dir} is the case's directory. `-o {dir}/out` is added unless `out` is false. */
  args: string[];
  out?: false;
  /** The whole first stderr line, with {dir} for the case's directory. */
  message: string;
}

const scenario = (edit: (s: string) => string, name = 'tiny-agent-sum-of-squares.yaml') => ({
  [name]: edit(GOOD_SCENARIO),
});
const sweep = (...a: string[]) => [...a, '-q'];
const S = (file = 'tiny-agent-sum-of-squares.yaml') => sweep('-s', `{dir}/${file}`);
const AUTO =
  '(accepted: a whole number ≥ 1 and ≤ 100000, auto, or auto:MIN..MAX:BATCH with 2 ≤ MIN ≤ MAX ≤ 100000 and BATCH ≥ 1, e.g. auto:20..200:20)';
const accepted = (what: string) => `(accepted: ${what}, lists like 12,30, ranges like 5..30:5, or off)`;

export const BAD_INPUTS: BadInput[] = [
  // Scenario files
  {
    name: 'scenario: invalid YAML',
    files: scenario((s) => s.replace('tools:', 'tools: [unclosed')),
    args: S(),
    message:
      'bench: {dir}/tiny-agent-sum-of-squares.yaml: invalid YAML: Implicit keys of flow sequence pairs need to be on a single line at line 9, column 9',
  },
  {
    name: 'scenario: duplicate key',
    files: scenario((s) => `${s}goal: again\n`),
    args: S(),
    message: 'bench: {dir}/tiny-agent-sum-of-squares.yaml: invalid YAML: Map keys must be unique at line 17, column 1',
  },
  {
    name: 'scenario: YAML alias bomb',
    files: { 'bomb.yaml': ALIAS_BOMB },
    args: S('bomb.yaml'),
    message: 'bench: {dir}/bomb.yaml: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
  },
  {
    name: 'scenario: unresolved YAML alias',
    files: { 'alias.yaml': 'id: *nowhere\n' },
    args: S('alias.yaml'),
    message:
      'bench: {dir}/alias.yaml: invalid YAML: Unresolved alias (the anchor must be set before the alias): nowhere',
  },
  {
    name: 'scenario: empty file',
    files: { 'empty.yaml': '' },
    args: S('empty.yaml'),
    message: 'bench: {dir}/empty.yaml: the file is empty (expected a YAML mapping of fields)',
  },
  {
    name: 'scenario: a list, not a mapping',
    files: { 'list.yaml': '- a\n- b\n' },
    args: S('list.yaml'),
    message: 'bench: {dir}/list.yaml: (top level): Invalid input: expected object, received array',
  },
  {
    name: 'scenario: wrong type (goal a number)',
    files: scenario((s) => s.replace(/^goal: .*$/m, 'goal: 42')),
    args: S(),
    message: 'bench: {dir}/tiny-agent-sum-of-squares.yaml: goal: Invalid input: expected string, received number',
  },
  {
    name: 'scenario: wrong type (tools a string)',
    files: scenario((s) => s.replace(/tools:[\s\S]*?check:/, 'tools: run_python\ncheck:')),
    args: S(),
    message: 'bench: {dir}/tiny-agent-sum-of-squares.yaml: tools: Invalid input: expected array, received string',
  },
  {
    name: 'scenario: unknown top-level field',
    files: scenario((s) => `${s}max_steps: 12\n`),
    args: S(),
    message: "bench: {dir}/tiny-agent-sum-of-squares.yaml: (top level): unknown field(s) 'max_steps'",
  },
  {
    name: 'scenario: unknown tool field',
    files: scenario((s) => s.replace('    timeout_s: 10', '    timeout_s: 10\n    timout: 5')),
    args: S(),
    message: "bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[0]: unknown field(s) 'timout'",
  },
  {
    name: 'scenario: negative timeout',
    files: scenario((s) => s.replace('timeout_s: 10', 'timeout_s: -1')),
    args: S(),
    message: 'bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[0].timeout_s: Too small: expected number to be >0',
  },
  {
    name: 'scenario: absurd timeout',
    files: scenario((s) => s.replace('timeout_s: 10', 'timeout_s: 1e9')),
    args: S(),
    message: 'bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[0].timeout_s: Too big: expected number to be <=600',
  },
  {
    name: 'scenario: absurd output cap',
    files: scenario((s) => s.replace('max_output_chars: 2000', 'max_output_chars: 1e12')),
    args: S(),
    message:
      'bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[0].max_output_chars: Too big: expected number to be <=1000000',
  },
  {
    name: 'scenario: memory limit too small',
    files: scenario((s) => s.replace('    timeout_s: 10', '    timeout_s: 10\n    max_memory_mb: 1')),
    args: S(),
    message:
      'bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[0].max_memory_mb: Too small: expected number to be >=64',
  },
  {
    name: 'scenario: empty goal',
    files: scenario((s) => s.replace(/^goal: .*$/m, 'goal: "   "')),
    args: S(),
    message: 'bench: {dir}/tiny-agent-sum-of-squares.yaml: goal: the goal must not be empty',
  },
  {
    name: 'scenario: unknown tool kind',
    files: scenario((s) => s.replace('kind: python', 'kind: shell')),
    args: S(),
    message:
      "bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[0].kind: Invalid discriminator value. Expected 'python' | 'scripted'",
  },
  {
    name: 'scenario: duplicate tool name',
    files: scenario((s) => s.replace('check:', '  - name: run_python\n    kind: python\ncheck:')),
    args: S(),
    message: "bench: {dir}/tiny-agent-sum-of-squares.yaml: tools[1].name: duplicate tool name 'run_python'",
  },
  {
    name: 'scenario: invalid check pattern',
    files: scenario((s) => s.replace('expected: "338350"', 'pattern: "338350("')),
    args: S(),
    message:
      'bench: {dir}/tiny-agent-sum-of-squares.yaml: check.pattern: not a regular expression RE2 can run in linear time (missing closing ): `338350(`; backreferences and lookaround are not supported)',
  },
  {
    name: 'scenario: check pattern with a backreference',
    files: scenario((s) => s.replace('expected: "338350"', 'pattern: "(3)\\\\1"')),
    args: S(),
    message:
      'bench: {dir}/tiny-agent-sum-of-squares.yaml: check.pattern: not a regular expression RE2 can run in linear time (invalid escape sequence: `\\1`; backreferences and lookaround are not supported)',
  },
  {
    name: 'scenario: id does not match the file name',
    files: scenario((s) => s, 'renamed.yaml'),
    args: S('renamed.yaml'),
    message: "bench: {dir}/renamed.yaml: id: 'tiny-agent-sum-of-squares' must match the file name 'renamed'",
  },
  {
    name: 'scenario: missing file',
    args: S('nowhere.yaml'),
    message: 'bench: {dir}/nowhere.yaml: cannot read file (ENOENT)',
  },
  {
    name: 'scenario: a directory',
    files: { 'dir.yaml/x': '' },
    args: S('dir.yaml'),
    message: 'bench: {dir}/dir.yaml: cannot read file (a directory, not a regular file)',
  },
  {
    name: 'scenario: a device that never ends',
    args: sweep('-s', '/dev/zero'),
    message: 'bench: /dev/zero: cannot read file (a device, not a regular file)',
  },
  {
    name: 'scenario: over the size cap',
    files: { 'huge.yaml': `# ${'x'.repeat(16 * 1024 * 1024)}\n` },
    args: S('huge.yaml'),
    message: 'bench: {dir}/huge.yaml: cannot read file (larger than 16 MiB, the limit for this file)',
  },
  {
    name: 'scenario: unknown id',
    args: sweep('-s', 'no-such-scenario'),
    message: `bench: unknown scenario 'no-such-scenario' (known: ${SHIPPED_SCENARIOS}; or give a path to a .yaml file)`,
  },
  {
    name: 'scenario: named twice',
    args: sweep('-s', 'seed-calibrated,seed-calibrated'),
    message: "bench: scenario 'seed-calibrated' is named twice",
  },
  {
    name: 'scenario: same id from two files',
    files: { 'a/tiny-agent-sum-of-squares.yaml': GOOD_SCENARIO },
    args: sweep('-s', 'tiny-agent-sum-of-squares,{dir}/a/tiny-agent-sum-of-squares.yaml'),
    message: "bench: scenario 'tiny-agent-sum-of-squares' is named twice",
  },
  {
    name: 'scenario: unknown tool in its profile',
    files: {
      ...scenario((s) => s.replace('profile: tiny-agent', 'profile: tiny-agent'), 'tiny-agent-sum-of-squares.yaml'),
      'tiny-agent.yaml': GOOD_PROFILE.replaceAll('tool: run_python', 'tool: web_search'),
    },
    args: sweep('-s', '{dir}/tiny-agent-sum-of-squares.yaml', '-m', 'sim:{dir}/tiny-agent.yaml'),
    message:
      "bench: --model sim:{dir}/tiny-agent.yaml: profile 'tiny-agent' calls tool(s) web_search that scenario 'tiny-agent-sum-of-squares' does not declare",
  },
  // Profile files
  {
    name: 'profile: unknown behaviour',
    files: { 'tiny-agent.yaml': GOOD_PROFILE.replace('behaviour: converge', 'behaviour: lazy') },
    args: sweep('-m', 'sim:{dir}/tiny-agent.yaml'),
    message:
      'bench: {dir}/tiny-agent.yaml: behaviour: Invalid option: expected one of "converge"|"perfectionist"|"stuck"|"cycle"|"recursive-verify"',
  },
  {
    name: 'profile: negative latency',
    files: { 'tiny-agent.yaml': GOOD_PROFILE.replace('latency_ms: { mean: 900', 'latency_ms: { mean: -900') },
    args: sweep('-m', 'sim:{dir}/tiny-agent.yaml'),
    message: 'bench: {dir}/tiny-agent.yaml: latency_ms.mean: Too small: expected number to be >=0',
  },
  {
    name: 'profile: rate above 1',
    files: { 'tiny-agent.yaml': `${GOOD_PROFILE}malformed_args_rate: 2\n` },
    args: sweep('-m', 'sim:{dir}/tiny-agent.yaml'),
    message: 'bench: {dir}/tiny-agent.yaml: malformed_args_rate: Too big: expected number to be <=1',
  },
  {
    name: 'profile: unknown field',
    files: { 'tiny-agent.yaml': `${GOOD_PROFILE}temperature: 0.7\n` },
    args: sweep('-m', 'sim:{dir}/tiny-agent.yaml'),
    message: "bench: {dir}/tiny-agent.yaml: (top level): unknown field(s) 'temperature'",
  },
  {
    name: 'profile: converge without steps_to_done',
    files: { 'tiny-agent.yaml': GOOD_PROFILE.replace(/^steps_to_done: .*\n/m, '') },
    args: sweep('-m', 'sim:{dir}/tiny-agent.yaml'),
    message: 'bench: {dir}/tiny-agent.yaml: steps_to_done: required when behaviour is converge',
  },
  {
    name: 'profile: empty uniform range',
    files: { 'tiny-agent.yaml': GOOD_PROFILE.replace('uniform: [3, 4]', 'uniform: [4, 3]') },
    args: sweep('-m', 'sim:{dir}/tiny-agent.yaml'),
    message: 'bench: {dir}/tiny-agent.yaml: steps_to_done: uniform range [4, 3] is empty',
  },
  {
    name: 'profile: unknown id',
    args: sweep('-m', 'sim:no-such-profile'),
    message: `bench: unknown simulated profile 'no-such-profile' (known: ${listProfiles().join(', ')})`,
  },
  // Pricing files
  {
    name: 'pricing: negative price',
    files: { 'pricing.yaml': GOOD_PRICING.replace('input: 0.15', 'input: -0.15') },
    args: sweep('--pricing', '{dir}/pricing.yaml'),
    message: 'bench: {dir}/pricing.yaml: models.gpt-4o-mini.input: Too small: expected number to be >=0',
  },
  {
    name: 'pricing: price as text',
    files: { 'pricing.yaml': GOOD_PRICING.replace('output: 0.60', 'output: "$0.60"') },
    args: sweep('--pricing', '{dir}/pricing.yaml'),
    message: 'bench: {dir}/pricing.yaml: models.gpt-4o-mini.output: Invalid input: expected number, received string',
  },
  {
    name: 'pricing: unknown field',
    files: { 'pricing.yaml': GOOD_PRICING.replace('cached_input: 0.075', 'cached_inptu: 0.075') },
    args: sweep('--pricing', '{dir}/pricing.yaml'),
    message: "bench: {dir}/pricing.yaml: models.gpt-4o-mini: unknown field(s) 'cached_inptu'",
  },
  {
    name: 'pricing: no models',
    files: { 'pricing.yaml': 'gpt-4o-mini: { input: 1, output: 2 }\n' },
    args: sweep('--pricing', '{dir}/pricing.yaml'),
    message:
      "bench: {dir}/pricing.yaml: models: missing (expected record); (top level): unknown field(s) 'gpt-4o-mini'",
  },
  {
    name: 'pricing: a device',
    args: sweep('--pricing', '/dev/zero'),
    message: 'bench: /dev/zero: cannot read file (a device, not a regular file)',
  },
  {
    name: 'profile: a device',
    args: sweep('-m', 'sim:/dev/urandom'),
    message: 'bench: /dev/urandom: cannot read file (a device, not a regular file)',
  },
  {
    name: 'pricing: model not in the table',
    args: sweep('--price-model', 'gpt-9'),
    message:
      "bench: {root}/data/pricing.yaml: no price for model 'gpt-9' (known: gpt-4o-mini, gpt-4o, gpt-4.1, gpt-4.1-mini, gpt-4.1-nano, o3-mini, o4-mini, claude-sonnet-4-5, claude-haiku-4-5, claude-opus-4-1); add it there, or pass --pricing FILE (a YAML table like data/pricing.yaml, or LiteLLM's model_prices_and_context_window.json), --price-model NAME (price it as a model of the table) or --price-in/--price-out",
  },
  // CLI values
  {
    name: 'cli: --steps 0',
    args: sweep('--steps', '0'),
    message:
      'bench: --steps: 0 is below the minimum 1 (accepted: whole numbers ≥ 1, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: --steps abc',
    args: sweep('--steps', 'abc'),
    message:
      "bench: --steps: 'abc' is not a whole number (accepted: whole numbers ≥ 1, lists like 12,30, ranges like 5..30:5, or off)",
  },
  {
    name: 'cli: --steps 2.5',
    args: sweep('--steps', '2.5'),
    message:
      "bench: --steps: '2.5' is not a whole number (accepted: whole numbers ≥ 1, lists like 12,30, ranges like 5..30:5, or off)",
  },
  {
    name: 'cli: --steps backwards range',
    args: sweep('--steps', '30..5'),
    message: "bench: --steps: range '30..5' runs backwards (write 5..30)",
  },
  {
    name: 'cli: --steps huge range',
    args: sweep('--steps', '1..1000000'),
    message: "bench: --steps: range '1..1000000' has more than 10,000 values",
  },
  {
    name: 'cli: --max-cost negative',
    args: sweep('--max-cost', '-1'),
    message:
      'bench: --max-cost: -1 is not above 0 (accepted: numbers > 0, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: --max-cost 0',
    args: sweep('--max-cost', '0'),
    message:
      'bench: --max-cost: 0 is not above 0 (accepted: numbers > 0, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: --timeout 0',
    args: sweep('--timeout', '0'),
    message:
      'bench: --timeout: 0 is not above 0 (accepted: numbers > 0, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: every length brake off',
    args: sweep('--steps', 'off', '--max-cost', 'off', '--timeout', 'off'),
    message:
      'bench: every length brake is off in some configuration: keep at least one of --steps, --max-cost, --timeout, --max-tokens, --max-calls, --max-rounds on',
  },
  {
    name: 'cli: --max-cycle 0',
    args: sweep('--max-cycle', '0'),
    message:
      'bench: --max-cycle: 0 is below the minimum 1 (accepted: whole numbers ≥ 1, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: --max-same-error 1.5',
    args: sweep('--max-same-error', '1.5'),
    message:
      "bench: --max-same-error: '1.5' is not a whole number (accepted: whole numbers ≥ 1, lists like 12,30, ranges like 5..30:5, or off)",
  },
  {
    name: 'cli: --near-duplicate 1.2',
    args: sweep('--near-duplicate', '1.2'),
    message:
      'bench: --near-duplicate: 1.2 is above the maximum 1 (accepted: numbers > 0 and ≤ 1, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: --near-duplicate 0',
    args: sweep('--near-duplicate', '0'),
    message:
      'bench: --near-duplicate: 0 is not above 0 (accepted: numbers > 0 and ≤ 1, lists like 12,30, ranges like 5..30:5, or off)',
  },
  {
    name: 'cli: --repeat 0',
    args: sweep('--repeat', '0'),
    message: 'bench: --repeat: 0 is below the minimum 1 (accepted: a whole number ≥ 1 and ≤ 100000)',
  },
  {
    name: 'cli: --repeat absurd',
    args: sweep('--repeat', '1e9'),
    message: 'bench: --repeat: 1e9 is above the maximum 100000 (accepted: a whole number ≥ 1 and ≤ 100000)',
  },
  {
    name: 'cli: --repeat off',
    args: sweep('--repeat', 'off'),
    message: "bench: --repeat: 'off' is not accepted here (accepted: a whole number ≥ 1 and ≤ 100000)",
  },
  {
    name: 'cli: --repeat auto with MIN 1',
    args: sweep('--repeat', 'auto:1..10'),
    message: `bench: --repeat: 'auto:1..10': MIN 1 is below 2, the fewest runs an interval can be taken on ${AUTO}`,
  },
  {
    name: 'cli: --repeat auto with MAX below MIN',
    args: sweep('--repeat', 'auto:30..10:5'),
    message: `bench: --repeat: 'auto:30..10:5': MAX 10 is below MIN 30 ${AUTO}`,
  },
  {
    name: 'cli: --repeat auto with MAX absurd',
    args: sweep('--repeat', 'auto:10..1000000'),
    message: `bench: --repeat: 'auto:10..1000000': MAX 1000000 is above 100000 ${AUTO}`,
  },
  {
    name: 'cli: --repeat auto with BATCH 0',
    args: sweep('--repeat', 'auto:10..100:0'),
    message: `bench: --repeat: 'auto:10..100:0': BATCH must be at least 1 ${AUTO}`,
  },
  {
    name: 'cli: --repeat auto misspelt',
    args: sweep('--repeat', 'auto:10-100'),
    message: `bench: --repeat: 'auto:10-100' is not auto or auto:MIN..MAX:BATCH ${AUTO}`,
  },
  {
    name: 'cli: --precision 5 (a percentage without %)',
    args: sweep('--repeat', 'auto', '--precision', '5'),
    message:
      "bench: --precision: '5' is not a precision (accepted: a fraction above 0 and at most 1 like 0.05, or a percentage like 5%)",
  },
  {
    name: 'cli: --precision 0%',
    args: sweep('--repeat', 'auto', '--precision', '0%'),
    message:
      "bench: --precision: '0%' is not a precision (accepted: a fraction above 0 and at most 1 like 0.05, or a percentage like 5%)",
  },
  {
    name: 'cli: --precision without --repeat auto',
    args: sweep('--precision', '5%'),
    message: 'bench: --precision: only with --repeat auto (a fixed --repeat runs every repeat whatever the precision)',
  },
  {
    name: 'cli: --repeat auto with --shard',
    args: sweep('--repeat', 'auto', '--shard', '1/2'),
    message:
      "bench: --shard: --repeat auto decides after each batch on all of a configuration's runs so far; a shard holds every n-th run only, so it cannot judge their precision, and shards deciding alone would stop at different points (give --repeat a count to shard)",
  },
  {
    name: 'cli: --repeat auto with --pause-at',
    args: sweep('-s', 'babyagi-queue-explosion', '--repeat', 'auto', '--pause-at', '2'),
    message:
      'bench: --pause-at: a paused run has no final cost or outcome, so --repeat auto could not judge it (give --repeat a count to pause)',
  },
  {
    name: 'cli: --concurrency 0',
    args: sweep('-j', '0'),
    message: 'bench: --concurrency: 0 is below the minimum 1 (accepted: a whole number ≥ 1 and ≤ 1024)',
  },
  {
    name: 'cli: --seed negative',
    args: sweep('--seed', '-1'),
    message: 'bench: --seed: -1 is below the minimum 0 (accepted: a whole number ≥ 0)',
  },
  {
    name: 'cli: --prompt-cache maybe',
    args: sweep('--prompt-cache', 'maybe'),
    message: "bench: --prompt-cache: 'maybe' is not accepted (accepted: on, off)",
  },
  {
    name: 'cli: --max-output-tokens 0',
    args: sweep('--max-output-tokens', '0'),
    message: 'bench: --max-output-tokens: 0 is below the minimum 1 (accepted: a whole number ≥ 1 and ≤ 1000000)',
  },
  {
    name: 'cli: unknown model',
    args: sweep('-m', 'gpt-4o'),
    message:
      "bench: unknown model 'gpt-4o' (accepted: sim (the scenario's own profile), sim:<profile>, openai:<model>, anthropic:<model> (--agent-cmd only), replay:<cassette.json>)",
  },
  {
    name: 'cli: --price-in alone',
    args: sweep('--price-in', '1'),
    message: 'bench: --price-in and --price-out go together (USD per 1M tokens)',
  },
  {
    name: 'cli: --price-out negative',
    args: sweep('--price-in', '1', '--price-out', '-2'),
    message: 'bench: --price-out: -2 is below the minimum 0 (accepted: a number ≥ 0)',
  },
  {
    name: 'cli: unknown flag',
    args: sweep('--stpes', '12'),
    message: "bench: unknown option '--stpes' (Did you mean --steps?) (run bench run --help for usage)",
  },
  {
    name: 'cli: flag without its value',
    args: ['--steps'],
    out: false,
    message: "bench: option '--steps <list>' argument missing (run bench run --help for usage)",
  },
  {
    name: 'cli: --resume a directory without meta.json',
    files: { 'empty/x': '' },
    args: sweep('--resume', '{dir}/empty'),
    out: false,
    message: 'bench: {dir}/empty/meta.json: not found: not a results directory',
  },
  {
    name: 'cli: --resume with a damaged meta.json',
    files: { 'damaged/meta.json': '{"tool": "loopbench", "status": "running"' },
    args: sweep('--resume', '{dir}/damaged'),
    out: false,
    message:
      "bench: {dir}/damaged/meta.json: cannot read it (Expected ',' or '}' after property value in JSON at position 41)",
  },
  {
    name: 'cli: --resume with a meta.json missing fields',
    files: { 'edited/meta.json': '{"tool": "loopbench", "status": "running", "scenarios": []}' },
    args: sweep('--resume', '{dir}/edited'),
    out: false,
    message:
      'bench: {dir}/edited/meta.json: version: missing (expected string); created_at: missing (expected string); finished_at: missing (expected string); command: missing (expected array); scenarios: Too small: expected array to have >=1 items; grid: missing (expected object); and 7 more',
  },
  // Node 20's recursive mkdir spins forever at 100 % CPU on this path; it must be refused at once.
  {
    name: 'cli: --out under /proc',
    args: sweep('-s', 'seed-calibrated', '-o', '/proc/1/forbidden'),
    out: false,
    message:
      'bench: --out /proc/1/forbidden: cannot create /proc/1/forbidden: this file system does not allow creating directories here (ENOENT)',
  },
  {
    name: 'cli: --out inside a file',
    files: { 'a-file': 'x' },
    args: sweep('-s', 'seed-calibrated', '-o', '{dir}/a-file/out'),
    out: false,
    message:
      'bench: --out {dir}/a-file/out: cannot look at {dir}/a-file/out: a part of the path is a file, not a directory (ENOTDIR)',
  },
  {
    name: 'cli: --out is a file',
    files: { 'a-file': 'x' },
    args: sweep('-s', 'seed-calibrated', '-o', '{dir}/a-file'),
    out: false,
    message: 'bench: --out {dir}/a-file: {dir}/a-file is a file, not a directory',
  },
  {
    name: 'cli: --resume with sweep flags',
    args: sweep('--resume', '{dir}', '--steps', '3'),
    out: false,
    message:
      "bench: --resume takes the sweep's settings from its meta.json; drop --steps (accepted with --resume: -q, --json, --ci-max-spend and the transport flags --base-url, --request-timeout, --max-retries, --record, --replay)",
  },
  {
    name: 'report: not a results directory',
    args: ['report', '{dir}'],
    out: false,
    message: 'bench: {dir}: not a results directory (no runs.jsonl or steps.jsonl)',
  },
];
