// Model specs on the command line → ChatModel instances.
import { UsageError } from '../contracts/errors.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import type { Settings } from '../contracts/settings.ts';
import type { Scenario } from '../scenario/schema.ts';
import { Cassette } from './cassette.ts';
import type { ChatModel } from '../contracts/chat.ts';
import { OpenAIModel } from './openai.ts';
import { RecordingModel, ReplayModel } from './recorded.ts';
import { loadProfile, type Profile } from '../sim/profile.ts';
import { SimModel } from '../sim/sim-model.ts';

export const MODEL_SPECS_HELP = "sim (the scenario's own profile), sim:<profile>, openai:<model>, replay:<cassette.json>";

export const API_KEY_VAR = 'OPENAI_API_KEY';

/** How non-simulated models are reached; none of it is part of a run's Settings (the key must never be). */
export interface ModelTransport {
  apiKey?: string;
  baseURL?: string;
  timeoutMs: number;
  maxRetries: number;
  /** Every answered call is added to this cassette (`--record`). */
  record?: Cassette;
  /** Every model is answered from this cassette (`--replay`). */
  replay?: Cassette;
}

export const DEFAULT_TRANSPORT: ModelTransport = { timeoutMs: 60_000, maxRetries: 2 };

const profiles = new Map<string, Profile>();
function cachedProfile(id: string): Profile {
  let p = profiles.get(id);
  if (!p) profiles.set(id, (p = loadProfile(id)));
  return p;
}

const cassettes = new Map<string, Cassette>();
function cachedCassette(file: string): Cassette {
  let c = cassettes.get(file);
  if (!c) cassettes.set(file, (c = Cassette.load(file)));
  return c;
}

/** The one model a `replay:<file>` spec replays. */
function replayedModel(file: string): string {
  const models = cachedCassette(file).models();
  if (models.length !== 1)
    throw new UsageError(`replay:${file}: the cassette holds ${models.length === 0 ? 'no recordings' : `${models.length} models (${models.join(', ')}); use --replay ${file} to replay each under its own name`}`);
  return models[0]!;
}

/** One kind of model spec (`<prefix>:<arg>`): how it is checked, built and priced. Adding a kind is one entry here. */
interface ModelKind {
  /** Check the spec without building anything (so bad input fails before a results directory exists). */
  validate(spec: string, arg: string, transport: ModelTransport): void;
  create(spec: string, arg: string, ctx: { settings: Settings; scenario: Scenario; counter: TokenCounter; transport: ModelTransport }): ChatModel;
  /** Calls a provider over the network (so latency, not CPU, bounds its runs). */
  networked: boolean;
  /** The pricing-table name its tokens are billed as by default, if it names one. */
  pricedAs(arg: string): string | undefined;
}

const MODEL_KINDS: Record<string, ModelKind> = {
  sim: {
    validate: (_spec, arg) => void (arg && cachedProfile(arg)),
    create: (spec, _arg, { scenario, counter, settings }) => {
      const profile = simProfileFor(spec, scenario);
      return new SimModel(`sim:${profile.id}`, profile, counter, { promptCache: settings.prompt_cache });
    },
    networked: false,
    pricedAs: () => undefined,
  },
  openai: {
    validate: (spec, arg, transport) => {
      if (!arg) throw new UsageError(`--model ${spec}: name the model, e.g. openai:gpt-4o-mini`);
      // A replayed model is answered from the cassette: no key needed.
      if (!transport.apiKey && !transport.replay) throw new UsageError(`${API_KEY_VAR} is not set: --model ${spec} needs it (or replay a cassette with --replay FILE; or measure for free on the simulated model: --model sim, or point an OpenAI-compatible agent at bench serve)`);
    },
    create: (spec, arg, { transport }) =>
      new OpenAIModel(spec, arg, { apiKey: transport.apiKey!, baseURL: transport.baseURL, timeoutMs: transport.timeoutMs, maxRetries: transport.maxRetries }),
    networked: true,
    pricedAs: (arg) => arg,
  },
  replay: {
    validate: (spec, arg) => {
      if (!arg) throw new UsageError(`--model ${spec}: name the cassette file, e.g. replay:cassette.json`);
      replayedModel(arg);
    },
    create: (spec, arg) => new ReplayModel(spec, replayedModel(arg), cachedCassette(arg)),
    networked: false,
    pricedAs: () => undefined,
  },
};

function kindOf(spec: string): { kind: ModelKind; arg: string } {
  const i = spec.indexOf(':');
  const [prefix, arg] = i < 0 ? [spec, ''] : [spec.slice(0, i), spec.slice(i + 1)];
  const kind = MODEL_KINDS[prefix];
  if (!kind) throw new UsageError(`unknown model '${spec}' (accepted: ${MODEL_SPECS_HELP})`);
  return { kind, arg };
}

/** Check a spec without building anything (so bad input fails before a results directory exists). */
export function validateModelSpec(spec: string, transport: ModelTransport = DEFAULT_TRANSPORT): void {
  const { kind, arg } = kindOf(spec);
  kind.validate(spec, arg, transport);
}

/** Whether the spec is a simulated model (`sim` or `sim:<profile>`). */
export const isSimulated = (spec: string): boolean => kindOf(spec).kind === MODEL_KINDS.sim;

/** The pricing-table model a spec is billed as by default (`openai:gpt-4o` → gpt-4o), if any. */
export const pricedModelOf = (spec: string): string | undefined => {
  const { kind, arg } = kindOf(spec);
  return kind.pricedAs(arg);
};

export function simProfileFor(spec: string, scenario: Scenario): Profile {
  const i = spec.indexOf(':');
  return cachedProfile(i < 0 ? scenario.profile : spec.slice(i + 1) || scenario.profile);
}

/** Whether runs with these settings call a provider over the network (so latency, not CPU, bounds them). */
export function callsProvider(settings: Settings, transport: ModelTransport = DEFAULT_TRANSPORT): boolean {
  if (transport.replay) return false;
  return [settings.model, ...Object.values(settings.role_models ?? {})].some((spec) => spec !== undefined && kindOf(spec).kind.networked);
}

export function createModel(settings: Settings, scenario: Scenario, counter: TokenCounter, transport: ModelTransport = DEFAULT_TRANSPORT): ChatModel {
  const spec = settings.model;
  if (transport.replay) return new ReplayModel(spec, spec, transport.replay);
  const { kind, arg } = kindOf(spec);
  kind.validate(spec, arg, transport);
  const model = kind.create(spec, arg, { settings, scenario, counter, transport });
  return transport.record ? new RecordingModel(model, spec, transport.record) : model;
}
