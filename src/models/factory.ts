// Model specs on the command line → ChatModel instances.
import { UsageError } from '../contracts/errors.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import type { Settings } from '../contracts/settings.ts';
import type { Scenario } from '../scenario/schema.ts';
import { Cassette } from './cassette.ts';
import type { ChatModel } from '../contracts/chat.ts';
import { OpenAIModel } from './openai.ts';
import { redact } from './redact.ts';
import { RecordingModel, ReplayModel } from './recorded.ts';
import { listProfiles, loadProfile, type Profile } from '../sim/profile.ts';
import { pricedName } from '../meter/model-price.ts';
import type { PricingTable } from '../meter/pricing.ts';
import { SimModel } from '../sim/sim-model.ts';
import { cacheBillingFor } from '../meter/prompt-cache.ts';

export const MODEL_SPECS_HELP =
  "sim (the scenario's own profile), sim:<profile>, openai:<model>, anthropic:<model> (--agent-cmd only), replay:<cassette.json>";

export const API_KEY_VAR = 'OPENAI_API_KEY';
/** An Anthropic model's key (`--model anthropic:<model>`, `bench serve --anthropic-upstream`), and its base URL as Anthropic's SDKs spell it. */
export const ANTHROPIC_KEY_VAR = 'ANTHROPIC_API_KEY';
export const ANTHROPIC_URL_VAR = 'ANTHROPIC_BASE_URL';
export const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com';

/** How non-simulated models are reached; none of it is part of a run's Settings (the key must never be). */
export interface ModelTransport {
  apiKey?: string;
  baseURL?: string;
  /** anthropic:<model> (through the gateway only): $ANTHROPIC_API_KEY and $ANTHROPIC_BASE_URL (its SDKs' spelling: no /v1). */
  anthropicApiKey?: string;
  anthropicBaseURL?: string;
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
    throw new UsageError(
      `replay:${file}: the cassette holds ${models.length === 0 ? 'no recordings' : `${models.length} models (${models.join(', ')}); use --replay ${file} to replay each under its own name`}`,
    );
  return models[0]!;
}

/** One kind of model spec (`<prefix>:<arg>`): how it is checked, built and priced. Adding a kind is one entry here. */
interface ModelKind {
  /** Check the spec without building anything (so bad input fails before a results directory exists). */
  validate(spec: string, arg: string, transport: ModelTransport): void;
  create(
    spec: string,
    arg: string,
    ctx: { settings: Settings; scenario: Scenario; counter: TokenCounter; transport: ModelTransport },
  ): ChatModel;
  /** Calls a provider over the network (so latency, not CPU, bounds its runs). */
  networked: boolean;
  /** The pricing-table name its tokens are billed as by default, if it names one. */
  pricedAs(arg: string): string | undefined;
  /** Reached only by an external agent through the gateway (bench run --agent-cmd): loopbench's own loops cannot call it. */
  agentOnly?: boolean;
}

const MODEL_KINDS: Record<string, ModelKind> = {
  sim: {
    validate: (_spec, arg) => void (arg && cachedProfile(arg)),
    create: (spec, _arg, { scenario, counter, settings }) => {
      const profile = simProfileFor(spec, scenario);
      return new SimModel(`sim:${profile.id}`, profile, counter, {
        promptCache: settings.prompt_cache,
        cacheBilling: cacheBillingFor(settings.price),
      });
    },
    networked: false,
    pricedAs: () => undefined,
  },
  openai: {
    validate: (spec, arg, transport) => {
      if (!arg) throw new UsageError(`--model ${spec}: name the model, e.g. openai:gpt-4o-mini`);
      // A replayed model is answered from the cassette: no key needed.
      if (!transport.apiKey && !transport.replay)
        throw new UsageError(
          `${API_KEY_VAR} is not set: --model ${spec} needs it (or replay a cassette with --replay FILE; or measure for free on the simulated model: --model sim, or point an OpenAI-compatible agent at bench serve)`,
        );
    },
    create: (spec, arg, { transport }) =>
      new OpenAIModel(spec, arg, {
        apiKey: transport.apiKey!,
        baseURL: transport.baseURL,
        timeoutMs: transport.timeoutMs,
        maxRetries: transport.maxRetries,
      }),
    networked: true,
    pricedAs: (arg) => arg,
  },
  // The gateway forwards an agent's Anthropic Messages calls to it; loopbench's own loops speak Chat Completions.
  anthropic: {
    validate: (spec, arg, transport) => {
      if (!arg) throw new UsageError(`--model ${spec}: name the model, e.g. anthropic:claude-sonnet-4-5`);
      if (!transport.anthropicApiKey && !transport.replay)
        throw new UsageError(
          `${ANTHROPIC_KEY_VAR} is not set: --model ${spec} needs it (or replay a cassette with --replay FILE; or measure for free on the simulated model: --model sim)`,
        );
      const url = transport.anthropicBaseURL ?? ANTHROPIC_DEFAULT_URL;
      if (!/^https?:\/\/[^/\s]+/.test(url))
        throw new UsageError(
          `${ANTHROPIC_URL_VAR}: '${redact(url)}' is not an http or https URL (e.g. ${ANTHROPIC_DEFAULT_URL})`,
        );
    },
    create: (spec) => {
      throw agentOnlyError(spec);
    },
    networked: true,
    pricedAs: (arg) => arg,
    agentOnly: true,
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

function agentOnlyError(spec: string): UsageError {
  return new UsageError(
    `--model ${spec}: loopbench's own loops speak Chat Completions, and an Anthropic model is reached through the gateway only: measure your agent with bench run --agent-cmd CMD --model ${spec}, or reach the model through an OpenAI-compatible endpoint with --model openai:<model> --base-url URL`,
  );
}

/** Refuses a spec that only an external agent can use (anthropic:<model>) where loopbench's own loop would call it. */
export function requireOwnLoopModel(spec: string): void {
  if (kindOf(spec).kind.agentOnly) throw agentOnlyError(spec);
}

/** Whether the spec is a simulated model (`sim` or `sim:<profile>`). */
export const isSimulated = (spec: string): boolean => kindOf(spec).kind === MODEL_KINDS.sim;

/** The pricing-table model a spec is billed as by default (`openai:gpt-4o` → gpt-4o), if any. */
export const pricedModelOf = (spec: string): string | undefined => {
  const { kind, arg } = kindOf(spec);
  return kind.pricedAs(arg);
};

/**
 * A model name the pricing table prices under none of its spellings and that names no simulated profile
 * (a profile's name, an openai: run against bench serve, is billed as the sim is): a run of it has no price.
 */
export const unpricedModel = (table: PricingTable, model: string): boolean =>
  !pricedName(table, model) && !listProfiles().includes(model);

export function simProfileFor(spec: string, scenario: Scenario): Profile {
  const i = spec.indexOf(':');
  return cachedProfile(i < 0 ? scenario.profile : spec.slice(i + 1) || scenario.profile);
}

/** Whether runs with these settings call a provider over the network (so latency, not CPU, bounds them). */
export function callsProvider(settings: Settings, transport: ModelTransport = DEFAULT_TRANSPORT): boolean {
  if (transport.replay) return false;
  return [settings.model, ...Object.values(settings.role_models ?? {})].some(
    (spec) => spec !== undefined && kindOf(spec).kind.networked,
  );
}

export function createModel(
  settings: Settings,
  scenario: Scenario,
  counter: TokenCounter,
  transport: ModelTransport = DEFAULT_TRANSPORT,
): ChatModel {
  const spec = settings.model;
  if (transport.replay) return new ReplayModel(spec, spec, transport.replay);
  const { kind, arg } = kindOf(spec);
  kind.validate(spec, arg, transport);
  const model = kind.create(spec, arg, { settings, scenario, counter, transport });
  return transport.record ? new RecordingModel(model, spec, transport.record) : model;
}
