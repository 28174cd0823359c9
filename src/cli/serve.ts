// `bench serve`: run the OpenAI-compatible sim server until Ctrl-C.
import path from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { ROOT } from '../contracts/paths.ts';
import { parseChoiceList, parseOne } from '../runner/values.ts';
import { DEFAULT_FAULTS, FAULTS, parseFaults } from '../serve/faults.ts';
import { startServe } from '../serve/server.ts';
import { loadProfile } from '../sim/profile.ts';
import { UsageError } from '../contracts/errors.ts';
import { exitCodeFor } from './interrupt.ts';

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
}

export function serveOptions(f: ServeFlags, now = new Date()) {
  if (!f.host.trim()) throw new UsageError('--host: empty (accepted: an address like 127.0.0.1 or 0.0.0.0)');
  if (f.profile) loadProfile(f.profile);
  const cache = parseChoiceList(f.promptCache, '--prompt-cache', ['on', 'off'] as const);
  if (cache.length !== 1) throw new UsageError('--prompt-cache: takes one value, on or off');
  return {
    host: f.host,
    port: parseOne(f.port, '--port', { integer: true, min: 0, max: 65535 }),
    latencyMs: parseOne(f.latency, '--latency', { min: 0, max: 600_000 }),
    errorRate: parseOne(f.errorRate, '--error-rate', { min: 0, max: 1 }),
    faults: parseFaults(f.faults),
    retryAfterS: parseOne(f.retryAfter, '--retry-after', { min: 0, max: 3600 }),
    profile: f.profile,
    promptCache: cache[0] === 'on',
    logFile: f.log ?? path.join(ROOT, 'results', `serve-${now.toISOString().replace(/[:]/g, '-').replace(/\..+$/, '')}.jsonl`),
  };
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('OpenAI-compatible HTTP server over the simulated models: point any agent at it and measure its loop cost for free')
    .option('-p, --port <n>', 'port (0 picks a free one)', '8787')
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--latency <ms>', 'time from each request to its answer, in milliseconds (the simulated work is done within it)', '0')
    .option('--error-rate <r>', 'share of requests (0..1) answered with an injected fault', '0')
    .option('--faults <list>', `faults --error-rate draws from: ${Object.keys(FAULTS).join(', ')}`, DEFAULT_FAULTS.join(','))
    .option('--retry-after <s>', 'seconds an injected 429 asks the client to wait (retry-after header)', '1')
    .option('--profile <id>', 'answer every model name with this simulated profile (default: the model name is the profile id)')
    .addOption(new Option('--prompt-cache <on|off>', 'bill repeated prompt prefixes as cached tokens, shared across requests as a provider does').default('off'))
    .option('--log <file>', 'per-request usage log, JSON lines (default: results/serve-<time>.jsonl)')
    .action(async (f: ServeFlags) => {
      const o = serveOptions(f);
      const server = await startServe(o);
      console.log(`bench serve: ${server.url} (POST /chat/completions, GET /models); usage log ${o.logFile}; Ctrl-C stops`);
      // The first signal closes the server (open connections are cut, the usage log flushed) and
      // exits 130/143 as a sweep does; a second one, with no handler left, ends the process at once.
      const sig = await new Promise<NodeJS.Signals>((resolve) => {
        const stop = (s: NodeJS.Signals) => void server.close().then(() => resolve(s));
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      process.exitCode = exitCodeFor(sig);
    });
}
