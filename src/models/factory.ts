// Model specs on the command line → ChatModel instances.
import { UsageError } from '../cli/errors.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import type { Settings } from '../runner/settings.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { ChatModel } from './chat.ts';
import { loadProfile, type Profile } from './sim/profile.ts';
import { SimModel } from './sim/sim-model.ts';

export const MODEL_SPECS_HELP = 'sim (the scenario\'s own profile), sim:<profile>';

const profiles = new Map<string, Profile>();
function cachedProfile(id: string): Profile {
  let p = profiles.get(id);
  if (!p) profiles.set(id, (p = loadProfile(id)));
  return p;
}

/** Check a spec without building anything (so bad input fails before a results directory exists). */
export function validateModelSpec(spec: string): void {
  const [kind, arg] = splitSpec(spec);
  if (kind === 'sim') {
    if (arg) cachedProfile(arg);
    return;
  }
  throw new UsageError(`unknown model '${spec}' (accepted: ${MODEL_SPECS_HELP})`);
}

function splitSpec(spec: string): [string, string] {
  const i = spec.indexOf(':');
  return i < 0 ? [spec, ''] : [spec.slice(0, i), spec.slice(i + 1)];
}

export function simProfileFor(spec: string, scenario: Scenario): Profile {
  const [, arg] = splitSpec(spec);
  return cachedProfile(arg || scenario.profile);
}

export function createModel(settings: Settings, scenario: Scenario, counter: TokenCounter): ChatModel {
  const [kind] = splitSpec(settings.model);
  if (kind === 'sim') {
    const profile = simProfileFor(settings.model, scenario);
    return new SimModel(`sim:${profile.id}`, profile, counter, { promptCache: settings.prompt_cache });
  }
  throw new UsageError(`unknown model '${settings.model}' (accepted: ${MODEL_SPECS_HELP})`);
}
