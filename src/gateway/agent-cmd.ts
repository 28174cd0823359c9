// `bench run --agent-cmd CMD`: each planned run is the user's own agent, started as a process and
// pointed at the gateway with a virtual key of its own (as OPENAI_* and ANTHROPIC_* alike, so an
// agent on either provider's SDK finds it). The gateway brakes and meters its calls;
// the process's exit and last line of stdout make the rest of its RunRecord.
import { ANTHROPIC_DEFAULT_URL, DEFAULT_TRANSPORT, simProfileFor, type ModelTransport } from '../models/factory.ts';
import type { RunRecord } from '../contracts/records.ts';
import type { CacheBilling, SimServer, StartSim } from '../contracts/sim-server.ts';
import type { Stop } from '../contracts/stop-reason.ts';
import { redact } from '../models/redact.ts';
import type { TokenCounter } from '../meter/tokens.ts';
import type { RunDeps, RunResult } from '../runner/run-one.ts';
import type { RunPlan } from '../runner/sweep.ts';
import { checkAnswer } from '../scenario/check.ts';
import { answerOf, PIPE_GRACE_MS, runAgentProcess, type AgentExit } from './agent-process.ts';
import { privateCodexHome } from './codex-home.ts';
import { Gateway, type GatewayRun } from './gateway.ts';
import { meteredRunRecord, RunMeter } from './run-meter.ts';
import { socketOffer } from './socket-offer.ts';
import type { Upstream } from './upstream.ts';

export const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';

/** The agent command a run's settings carry (the sweep's `agent_cmd` dimension), if any. */
export const agentCmdOf = (settings: RunPlan['settings']): string | null =>
  typeof settings.agent.agent_cmd === 'string' ? settings.agent.agent_cmd : null;

export interface AgentHost {
  /** Runs one planned run as the agent process; the sweep runner calls it in place of a built-in loop. */
  execute(plan: RunPlan, deps: RunDeps): Promise<RunResult>;
  close(): Promise<void>;
}

export interface AgentHostOptions {
  counter: TokenCounter;
  transport?: ModelTransport;
  promptCache: boolean;
  /** Starts the simulated upstream, for runs of a simulated model (the command line gives bench serve's). */
  startSim: StartSim;
  /** Whose prompt caching the simulated model follows: Anthropic's for a sweep priced as a model that bills cache writes. */
  cacheBilling?: CacheBilling;
  /** Environment the agents start from (the harness's own, by default); the upstream key is taken out of it. */
  baseEnv?: NodeJS.ProcessEnv;
}

/** Starts the gateway (and, for simulated models, a private `bench serve` behind it) on 127.0.0.1. */
export async function startAgentHost(o: AgentHostOptions): Promise<AgentHost> {
  const transport = o.transport ?? DEFAULT_TRANSPORT;
  let sim: Promise<SimServer> | null = null;
  const gateway = await Gateway.start({ host: '127.0.0.1', port: 0, counter: o.counter });
  const acceptsSocket = socketOffer();
  const upstreamFor = async (plan: RunPlan): Promise<Upstream> => {
    const spec = plan.settings.model;
    if (spec.startsWith('openai:'))
      return {
        url: transport.baseURL ?? OPENAI_DEFAULT_URL,
        apiKey: transport.apiKey,
        model: spec.slice('openai:'.length),
        timeoutMs: transport.timeoutMs,
        speaks: 'openai',
      };
    // Anthropic's base URL is spelled without /v1 (its SDKs add /v1/messages); the gateway's upstreams all end in /v1.
    if (spec.startsWith('anthropic:'))
      return {
        url: `${(transport.anthropicBaseURL ?? ANTHROPIC_DEFAULT_URL).replace(/\/+$/, '')}/v1`,
        apiKey: transport.anthropicApiKey,
        model: spec.slice('anthropic:'.length),
        timeoutMs: transport.timeoutMs,
        speaks: 'anthropic',
      };
    sim ??= o.startSim({
      promptCache: o.promptCache,
      ...(o.cacheBilling ? { cacheBilling: o.cacheBilling } : {}),
      onToolMapping: sayToolMapping,
      onIgnored: sayIgnored,
    });
    return {
      url: (await sim).url,
      model: simProfileFor(spec, plan.scenario).id,
      seed: plan.settings.seed,
      timeoutMs: transport.timeoutMs,
    };
  };
  const secrets = [transport.apiKey, transport.anthropicApiKey];
  const base = Object.fromEntries(
    Object.entries(o.baseEnv ?? process.env).filter(
      ([, v]) => v !== undefined && !secrets.some((s) => s && v.includes(s)),
    ),
  );

  async function execute(plan: RunPlan, deps: RunDeps): Promise<RunResult> {
    const { settings, scenario } = plan;
    const startedAt = new Date().toISOString();
    const meter = new RunMeter(plan.runId, plan.configId, settings, deps.onStep, { keepLog: deps.transcript ?? true });
    const tape =
      transport.record || transport.replay
        ? { spec: settings.model, scenario: scenario.id, record: transport.record, replay: transport.replay }
        : undefined;
    // A replayed run reaches no model: every answer comes from the cassette.
    const upstream = transport.replay
      ? { url: 'http://replay.invalid/v1', timeoutMs: transport.timeoutMs }
      : await upstreamFor(plan);
    const websocket = await acceptsSocket(upstream);
    const run: GatewayRun = {
      meter,
      upstream,
      ...(deps.spend ? { spend: deps.spend } : {}),
      ...(tape ? { tape } : {}),
    };
    const key = gateway.open(run);
    const system = scenario.agent === 'react' ? scenario.system : '';
    // Codex CLI finds the gateway only through its config: a private copy names it (codex-home.ts).
    const codex = privateCodexHome(gateway.url, base, websocket);
    const env = {
      ...base,
      CODEX_HOME: codex.dir,
      OPENAI_BASE_URL: gateway.url,
      OPENAI_API_KEY: key,
      // Anthropic's SDKs add /v1/messages to their base URL, and send the key as x-api-key.
      ANTHROPIC_BASE_URL: gateway.url.replace(/\/v1$/, ''),
      ANTHROPIC_API_KEY: key,
      LOOPBENCH_RUN_ID: plan.runId,
      LOOPBENCH_SEED: String(settings.seed),
      LOOPBENCH_SYSTEM: system,
      LOOPBENCH_GOAL: scenario.goal,
      LOOPBENCH_MAX_STEPS: settings.limits.max_steps === null ? '' : String(settings.limits.max_steps),
      LOOPBENCH_MODEL: run.upstream.model ?? settings.model,
    };
    const timeoutS = settings.limits.timeout_s;
    const exit = await runAgentProcess(agentCmdOf(settings)!, {
      env,
      timeoutMs: timeoutS === null ? null : timeoutS * 1000,
      signal: deps.signal,
    }).finally(() => codex.dispose());
    gateway.end(key);
    const stop = stopOf(exit, meter, timeoutS, secrets);
    const answer = stop.reason === 'done' ? answerOf(exit.stdout) : null;
    const success = stop.reason === 'done' ? checkAnswer(scenario.check, answer) : scenario.check ? false : null;
    const record = meteredRunRecord(meter, { stop, answer, success, started_at: startedAt });
    return { record, calls: meter.log, messages: [] };
  }

  return {
    execute,
    close: async () => {
      await gateway.close();
      if (sim) await (await sim).close();
    },
  };
}

/** Once per protocol and set of parts: what of the agent's requests the simulated model accepts and leaves unread. */
export function sayIgnored(route: string, parts: string[]): void {
  console.error(
    `bench: the simulated model accepts and ignores, in POST ${route} requests, what it cannot act on: ${parts.join('; ')}`,
  );
}

/** Once per profile and set of tools: the agent's tools are not the profile's, and what the sim does about it. */
export function sayToolMapping(profile: string, notes: string[]): void {
  console.error(
    `bench: the simulated model (profile ${profile}) plays its actions on your agent's tools: ${notes.join('; ')}`,
  );
}

/** Why the run ended: Ctrl-C, the timeout, a brake at the gateway, or the agent's own exit. */
function stopOf(exit: AgentExit, meter: RunMeter, timeoutS: number | null, secrets: Array<string | undefined>): Stop {
  const step = meter.state.steps;
  if (exit.interrupted)
    return { reason: 'interrupted', detail: `interrupted: the agent process was stopped at step ${step}`, step };
  if (meter.stop) return meter.stop;
  const after = leftBehind(exit);
  if (exit.timedOut)
    return {
      reason: 'timeout',
      detail: `timeout ${timeoutS} s: the agent was still running; its process tree was killed at step ${step}${after}`,
      step,
    };
  if (exit.spawnError)
    return { reason: 'error', detail: `the agent command could not be started: ${exit.spawnError}`, step };
  if (exit.code === 0) return { reason: 'done', detail: `the agent exited 0 after ${step} step(s)${after}`, step };
  const how = exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`;
  // Agents print their failures on either stream (Claude Code writes API errors to stdout): the end of each.
  const stdout = exit.stdout.trim();
  const tails = [
    meter.lastError && `its last call failed: ${meter.lastError.slice(0, 500)}`,
    exit.stderrTail.slice(-500),
    stdout && `its stdout ends: ${stdout.slice(-500)}`,
  ].filter(Boolean);
  const tail = tails.length ? `: ${redact(tails.join('; '), secrets)}` : '';
  return { reason: 'error', detail: `the agent ${how} at step ${step}${after}${tail}`, step };
}

/** What the agent left behind when it ended, if anything: processes outside its group, a pipe still held. */
function leftBehind(exit: AgentExit): string {
  const parts: string[] = [];
  if (exit.leftRunning > 0)
    parts.push(`${exit.leftRunning} process(es) it had started outside its process group were killed`);
  if (exit.pipeHeld)
    parts.push(
      `a process it left behind still held its output open ${PIPE_GRACE_MS / 1000} s later, so its output was read no further`,
    );
  return parts.length ? `; ${parts.join('; ')}` : '';
}
