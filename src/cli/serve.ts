// `bench serve`: run the OpenAI-compatible sim server until Ctrl-C.
import { importServedTraces, servedTraces } from './serve-traces.ts';
import type { Command } from 'commander';
import { Option } from 'commander';
import { parseChoiceList, parseOne } from '../runner/values.ts';
import { DEFAULT_FAULTS, FAULTS, parseFaults } from '../serve/faults.ts';
import { startServe, startSim } from '../serve/server.ts';
import { sayIgnored, sayToolMapping } from '../gateway/agent-cmd.ts';
import { loadProfile } from '../sim/profile.ts';
import { UsageError } from '../contracts/errors.ts';
import { exitCodeFor } from './interrupt.ts';
import { isLoopback } from '../gateway/gateway.ts';
import {
  CLOSED_RUNS_KEPT,
  RUN_IDLE_MS,
  startStandaloneGateway,
  type StandaloneOptions,
} from '../gateway/standalone.ts';
import { DEFAULT_PRICED_MODEL, DEFAULT_PRICING_FILE, loadPricing, noPriceError } from '../meter/pricing.ts';
import { findPrice, requirePrice } from '../meter/model-price.ts';
import { TokenCounter } from '../meter/tokens.ts';
import { cacheBillingByModel } from '../meter/prompt-cache.ts';
import { ANTHROPIC_DEFAULT_URL, ANTHROPIC_KEY_VAR, API_KEY_VAR, unpricedModel } from '../models/factory.ts';
import { DEFAULT_IDLE_MS, DEFAULT_MAX_ANSWER_BYTES } from '../gateway/upstream.ts';
import { redact } from '../models/redact.ts';
import { resultsDirFor, timestampName } from '../results/results-dir.ts';
import { RUN_DEFAULTS } from '../runner/run-defaults.ts';
import { parseLimits } from '../runner/plan.ts';
import { LIMITS, type Limits } from '../contracts/limits.ts';

interface ServeFlags {
  port: string;
  host: string;
  latency: string;
  errorRate: string;
  faults: string;
  retryAfter: string;
  profile?: string;
  promptCache: string;
  log?: string;
  upstream?: string;
  authToken?: string;
  out?: string;
  steps?: string;
  maxCost?: string;
  timeout?: string;
  maxRepeat?: string;
  maxTokens?: string;
  maxCalls?: string;
  maxOutputTokens?: string;
  priceModel?: string;
  pricing?: string;
  traces?: string;
  anthropicUpstream?: string;
  requestTimeout?: string;
  idleTimeout?: string;
  runIdle?: string;
  maxAnswerMb?: string;
}

/** An upstream call's total deadline by default: a long streamed answer of a slow model fits in it. */
export const GATEWAY_REQUEST_TIMEOUT_S = 600;

/** `--upstream` or `--out`: bench serve is the metering gateway, with per-run brakes and records. */
export function gatewayOptions(
  f: ServeFlags,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): StandaloneOptions | null {
  if (f.upstream === undefined && f.anthropicUpstream === undefined && f.out === undefined) {
    const stray = (
      [
        'steps',
        'maxCost',
        'timeout',
        'maxRepeat',
        'maxTokens',
        'maxCalls',
        'maxOutputTokens',
        'priceModel',
        'pricing',
        'authToken',
        'requestTimeout',
        'idleTimeout',
        'runIdle',
        'maxAnswerMb',
      ] as const
    ).find((k) => f[k] !== undefined);
    if (stray)
      throw new UsageError(
        `--${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: a gateway flag; give --upstream URL, --anthropic-upstream URL or --out DIR to run bench serve as the metering gateway`,
      );
    return null;
  }
  if (f.upstream !== undefined)
    checkUpstream(f.upstream, '--upstream', 'https://api.openai.com/v1 or any OpenAI-compatible base URL');
  if (f.anthropicUpstream !== undefined)
    checkUpstream(
      f.anthropicUpstream,
      '--anthropic-upstream',
      `${ANTHROPIC_DEFAULT_URL} (Anthropic's base URL, without /v1)`,
    );
  if (f.authToken !== undefined && f.authToken.length < 16)
    throw new UsageError('--auth-token: use at least 16 characters');
  if (!isLoopback(f.host) && !f.authToken)
    throw new UsageError(
      `--host ${f.host}: a gateway reachable beyond this machine needs --auth-token (or keep the default 127.0.0.1)`,
    );
  if (f.upstream !== undefined && !env[API_KEY_VAR])
    throw new UsageError(
      `--upstream: ${API_KEY_VAR} is not set in bench serve's environment (the gateway forwards with it; agents never see it)`,
    );
  if (f.anthropicUpstream !== undefined && !env[ANTHROPIC_KEY_VAR])
    throw new UsageError(
      `--anthropic-upstream: ${ANTHROPIC_KEY_VAR} is not set in bench serve's environment (the gateway forwards with it as x-api-key; agents never see it)`,
    );
  const pricing = f.pricing ?? DEFAULT_PRICING_FILE;
  const table = loadPricing(pricing);
  const real = f.upstream !== undefined || f.anthropicUpstream !== undefined;
  // The table of brakes parses them as bench run does; the gateway takes one value of each (all may be
  // off: the agent's own limits then decide, and the gateway only meters).
  const limits = Object.fromEntries(
    Object.entries(parseLimits(f)).map(([key, values]) => {
      if (values.length !== 1)
        throw new UsageError(
          `${LIMITS.find((d) => d.key === key)!.flag}: the gateway takes one value (a sweep of values is bench run --agent-cmd)`,
        );
      return [key, values[0]!];
    }),
  ) as Limits;
  return {
    host: f.host,
    port: parseOne(f.port, '--port', { integer: true, min: 0, max: 65535 }),
    ...(f.authToken ? { authToken: f.authToken } : {}),
    ...(f.upstream !== undefined ? { upstreamUrl: f.upstream, apiKey: env[API_KEY_VAR] } : {}),
    ...(f.anthropicUpstream !== undefined
      ? { anthropicUrl: f.anthropicUpstream, anthropicKey: env[ANTHROPIC_KEY_VAR] }
      : {}),
    // Without --price-model, a run is priced as the model its first call names. A provider's model the
    // table has no price for refuses that call and ends the run; the sim's profiles are priced as the default.
    ...(f.priceModel === undefined
      ? {
          priceOf: (model: string) =>
            findPrice(table, model, pricing) ??
            (real && unpricedModel(table, model) ? { unpriced: noPriceError(model, pricing).message } : undefined),
        }
      : {}),
    timeoutMs:
      parseOne(f.requestTimeout ?? String(GATEWAY_REQUEST_TIMEOUT_S), '--request-timeout', {
        min: 0.001,
        max: 86_400,
      }) * 1000,
    idleMs:
      parseOne(f.idleTimeout ?? String(DEFAULT_IDLE_MS / 1000), '--idle-timeout', { min: 0.001, max: 86_400 }) * 1000,
    runIdleMs: parseOne(f.runIdle ?? String(RUN_IDLE_MS / 1000), '--run-idle', { min: 0.001, max: 7 * 86_400 }) * 1000,
    maxAnswerBytes: Math.round(
      parseOne(f.maxAnswerMb ?? String(DEFAULT_MAX_ANSWER_BYTES / 1024 / 1024), '--max-answer-mb', {
        min: 0.001,
        max: 1024,
      }) *
        1024 *
        1024,
    ),
    settings: {
      model: upstreamModel(f),
      limits,
      reflection: 'off',
      max_reflections: 1,
      context: 'full',
      price: requirePrice(table, f.priceModel ?? DEFAULT_PRICED_MODEL, pricing),
      prompt_cache: f.promptCache === 'on',
      max_output_tokens: parseOne(f.maxOutputTokens ?? RUN_DEFAULTS.maxOutputTokens, '--max-output-tokens', {
        integer: true,
        min: 1,
        max: 1_000_000,
      }),
      agent: {},
    },
    dir: resultsDirFor(f.out ?? `gateway-${timestampName(now)}`),
    counter: new TokenCounter(),
    promptCache: f.promptCache === 'on',
    startSim,
  };
}

/** What a standalone gateway's runs say they ran on. */
function upstreamModel(f: ServeFlags): string {
  if (f.upstream !== undefined && f.anthropicUpstream !== undefined) return 'openai+anthropic:upstream';
  return f.upstream !== undefined
    ? 'openai:upstream'
    : f.anthropicUpstream !== undefined
      ? 'anthropic:upstream'
      : 'sim';
}

function checkUpstream(text: string, flag: string, accepted: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: '${redact(text)}' is not a URL (accepted: ${accepted})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag}: '${redact(text)}' is not http or https`);
}

/** Flags of the simulated server that the gateway has no use for, and why: given with it, they are refused, not ignored. */
const SIM_ONLY: Record<string, string> = {
  profile: 'answers each request with the model it names (forwarded upstream, or the simulated profile of that name)',
  log: 'records every call in its results directory (--out DIR: steps.jsonl, runs.jsonl) instead of a usage log',
  latency: 'adds no latency of its own (put a bench serve --latency behind it with --upstream to test that)',
  errorRate: 'injects no faults (put a bench serve --error-rate behind it with --upstream to test that)',
  faults: 'injects no faults (put a bench serve --faults behind it with --upstream to test that)',
  retryAfter: 'injects no 429s (put a bench serve --error-rate behind it with --upstream to test that)',
};

/** Gateway mode: a flag only the simulated server reads is a usage error naming why. */
export function refuseSimFlags(given: (key: string) => boolean): void {
  const key = Object.keys(SIM_ONLY).find(given);
  if (key)
    throw new UsageError(
      `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: not taken in gateway mode (--upstream, --anthropic-upstream or --out): the gateway ${SIM_ONLY[key]}`,
    );
}

export function serveOptions(f: ServeFlags, now = new Date()) {
  if (!f.host.trim()) throw new UsageError('--host: empty (accepted: an address like 127.0.0.1 or 0.0.0.0)');
  if (f.profile) loadProfile(f.profile);
  const cache = parseChoiceList(f.promptCache, '--prompt-cache', ['on', 'off'] as const);
  if (cache.length !== 1) throw new UsageError('--prompt-cache: takes one value, on or off');
  const table = cache[0] === 'on' ? loadPricing() : null;
  return {
    host: f.host,
    port: parseOne(f.port, '--port', { integer: true, min: 0, max: 65535 }),
    latencyMs: parseOne(f.latency, '--latency', { min: 0, max: 600_000 }),
    errorRate: parseOne(f.errorRate, '--error-rate', { min: 0, max: 1 }),
    faults: parseFaults(f.faults),
    retryAfterS: parseOne(f.retryAfter, '--retry-after', { min: 0, max: 3600 }),
    profile: f.profile,
    promptCache: cache[0] === 'on',
    // As a sweep caches at the price it bills: Anthropic's rule for a model the table bills cache writes for.
    ...(table ? { cacheBilling: cacheBillingByModel((model) => findPrice(table, model)) } : {}),
    logFile: f.log ?? resultsDirFor(`serve-${timestampName(now)}.jsonl`),
  };
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description(
      'HTTP server over the simulated models speaking Chat Completions, the Responses API and Anthropic Messages: point any agent at it and measure its loop cost for free',
    )
    .option('-p, --port <n>', 'port (0 picks a free one)', '8787')
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option(
      '--latency <ms>',
      'simulated server only: time from each request to its answer, in milliseconds (the simulated work is done within it)',
      '0',
    )
    .option('--error-rate <r>', 'simulated server only: share of requests (0..1) answered with an injected fault', '0')
    .option(
      '--faults <list>',
      `simulated server only: faults --error-rate draws from: ${Object.keys(FAULTS).join(', ')}`,
      DEFAULT_FAULTS.join(','),
    )
    .option(
      '--retry-after <s>',
      'simulated server only: seconds an injected 429 asks the client to wait (retry-after header)',
      '1',
    )
    .option(
      '--profile <id>',
      'simulated server only: answer every model name with this simulated profile (default: the model name is the profile id)',
    )
    .addOption(
      new Option(
        '--prompt-cache <on|off>',
        'bill repeated prompt prefixes as cached tokens, shared across requests as a provider does',
      ).default('off'),
    )
    .option(
      '--log <file>',
      'simulated server only: per-request usage log, JSON lines (default: results/serve-<time>.jsonl; the gateway records its calls in --out DIR instead)',
    )
    .option(
      '--upstream <url>',
      `gateway mode: forward Chat Completions and Responses calls to this OpenAI-compatible API with the key in $${API_KEY_VAR}, metered and braked per run`,
    )
    .option(
      '--anthropic-upstream <url>',
      `gateway mode: forward Anthropic Messages calls to this API (Anthropic's base URL, e.g. ${ANTHROPIC_DEFAULT_URL}) with the key in $${ANTHROPIC_KEY_VAR} (sent as x-api-key)`,
    )
    .option(
      '--out <dir>',
      "gateway mode: results directory for the runs (steps.jsonl as calls happen, a run's line of runs.jsonl when it goes quiet or the gateway stops); without --upstream the sim answers",
    )
    .option(
      '--auth-token <token>',
      'gateway mode: the bearer token runs named by x-loopbench-run must send; required with a --host other than loopback',
    )
    .option('--steps <n>', 'gateway mode: calls per run (or off)')
    .option(
      '--max-cost <usd>',
      'gateway mode: budget per run in USD, never exceeded (each call is projected at its answer limit, lowered when the budget cannot afford it, also with calls in flight)',
    )
    .option('--timeout <s>', "gateway mode: seconds from a run's first call after which its calls are refused")
    .option(
      '--max-repeat <n>',
      'gateway mode: an answer whose tool call would repeat an action more often is withheld (spin)',
    )
    .option('--max-tokens <n>', 'gateway mode: total tokens per run (or off)')
    .option('--max-calls <n>', 'gateway mode: model calls per run (or off)')
    .option(
      '--max-output-tokens <n>',
      "gateway mode: the least a budget lowers an agent's answer limit to before --max-cost / --max-tokens refuse the call (an affordable max_tokens goes as the agent sent it)",
    )
    .option(
      '--price-model <name>',
      `gateway mode: price every run's tokens as this model of the pricing table (default: the model a run's first call names; a provider's model the table lacks is refused, a simulated profile is priced as ${DEFAULT_PRICED_MODEL})`,
    )
    .option(
      '--pricing <file>',
      "gateway mode: the pricing table (YAML like data/pricing.yaml, or LiteLLM's model_prices_and_context_window.json; default data/pricing.yaml)",
    )
    .option(
      '--request-timeout <s>',
      `gateway mode: total deadline of each upstream call, request to last byte (default ${GATEWAY_REQUEST_TIMEOUT_S}; a call in flight also ends with its run's --timeout)`,
    )
    .option(
      '--idle-timeout <s>',
      `gateway mode: an upstream call fails when the upstream sends nothing for this long (default ${DEFAULT_IDLE_MS / 1000})`,
    )
    .option(
      '--run-idle <s>',
      `gateway mode: a run with no request for this long is recorded in runs.jsonl and closed; a call naming it later is refused while it is among the last ${CLOSED_RUNS_KEPT.toLocaleString('en-US')} closed (default ${RUN_IDLE_MS / 1000})`,
    )
    .option(
      '--max-answer-mb <n>',
      `gateway mode: the most of one upstream answer the gateway reads, in MiB; a larger one is refused (502) and its run ends as an error (default ${DEFAULT_MAX_ANSWER_BYTES / 1024 / 1024})`,
    )
    .option(
      '--traces <dir>',
      'also receive OpenTelemetry traces on POST /v1/traces (OTLP/HTTP, protobuf or JSON): kept in DIR/traces.otlp.jsonl, imported into DIR as runs, with reports, when bench serve stops',
    )
    .action(async (f: ServeFlags, cmd: Command) => {
      const g = gatewayOptions(f);
      if (g) refuseSimFlags((key) => cmd.getOptionValueSource(key) === 'cli');
      const traces = servedTraces(f.traces, f.host);
      const route = traces ? { traces: traces.receiver.route } : {};
      const o = g ? null : serveOptions(f);
      const server = g
        ? await startStandaloneGateway({ ...g, ...route })
        : await startServe({ ...o!, ...route, onIgnored: sayIgnored, onToolMapping: sayToolMapping });
      // The first signal closes the server (open connections are cut; the usage log flushed, or the
      // gateway's calls in flight recorded and runs.jsonl written) and exits 130/143 as a sweep
      // does; a second one, with no handler left, ends the process at once. Trapped before the
      // address is printed: a client that signals as soon as it reads the address finds the trap set.
      const stopped = new Promise<NodeJS.Signals>((resolve) => {
        const stop = (s: NodeJS.Signals) => void server.close().then(() => resolve(s));
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      if (g) {
        console.log(
          `bench serve (gateway): ${server.url} → ${
            [g.upstreamUrl, g.anthropicUrl]
              .filter((u) => u !== undefined)
              .map((u) => redact(u))
              .join(' and ') || 'simulated models'
          }; name each run with the header x-loopbench-run (or POST /v1/loopbench/runs for a virtual key); records in ${g.dir} (a run's record when it goes quiet for ${g.runIdleMs! / 1000} s); Ctrl-C stops and records the open runs`,
        );
        if (traces) console.log(`bench serve: POST ${server.url}/traces takes OpenTelemetry traces into ${traces.dir}`);
      } else
        console.log(
          `bench serve: ${server.url} (POST /chat/completions, /responses, /messages${traces ? ', /traces' : ''}; GET /models; WebSocket /responses); usage log ${o!.logFile}${traces ? `; traces into ${traces.dir}` : ''}; Ctrl-C stops`,
        );
      const sig = await stopped;
      if (traces) await importServedTraces(traces);
      process.exitCode = exitCodeFor(sig);
    });
}
