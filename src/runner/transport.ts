// How non-simulated models are reached (base URL, timeout, retries, cassettes), from the transport flags.
// None of this is a swept setting; the API key is read from the environment only.
import { Cassette } from '../models/cassette.ts';
import { redact } from '../models/redact.ts';
import {
  ANTHROPIC_DEFAULT_URL,
  ANTHROPIC_KEY_VAR,
  ANTHROPIC_URL_VAR,
  API_KEY_VAR,
  DEFAULT_TRANSPORT,
  type ModelTransport,
} from '../models/factory.ts';
import { parseOne } from './values.ts';
import { UsageError } from '../contracts/errors.ts';
import { providerPrefix, serverOfUrl, type ModelServers } from '../contracts/model-server.ts';

export interface TransportFlags {
  baseUrl?: string;
  requestTimeout: string;
  maxRetries: string;
  record?: string;
  replay?: string;
}

export function transportFrom(o: TransportFlags, env: NodeJS.ProcessEnv = process.env): ModelTransport {
  if (o.record && o.replay) throw new UsageError('--record and --replay do not go together');
  const baseURL = o.baseUrl ?? (env.OPENAI_BASE_URL || undefined);
  if (baseURL !== undefined) checkUrl(baseURL, o.baseUrl !== undefined ? '--base-url' : 'OPENAI_BASE_URL');
  // Checked where an anthropic:<model> is used (factory.ts): a variable set for other tools must not stop other runs.
  const anthropicBaseURL = env[ANTHROPIC_URL_VAR] || ANTHROPIC_DEFAULT_URL;
  return {
    apiKey: env[API_KEY_VAR] || undefined,
    baseURL,
    anthropicApiKey: env[ANTHROPIC_KEY_VAR] || undefined,
    anthropicBaseURL,
    timeoutMs: parseOne(o.requestTimeout, '--request-timeout', { min: 0.001, max: 3600 }) * 1000,
    maxRetries: parseOne(o.maxRetries, '--max-retries', { integer: true, min: 0, max: 20 }),
    record: o.record ? Cassette.open(o.record) : undefined,
    replay: o.replay ? Cassette.load(o.replay) : undefined,
  };
}

function checkUrl(text: string, flag: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: '${redact(text)}' is not a URL (accepted: http://host:port/v1 or https://...)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag}: '${redact(text)}' is not http or https`);
}

/** The OpenAI SDK's base URL when none is given. */
const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';

/** Where a sweep's network models are served (meta.json `model_servers`), for the spans' server.address/port; none when replayed from a cassette. */
export function modelServersOf(
  spec: { grid: { model: readonly string[] }; fixed: { role_models?: Partial<Record<string, string>> } },
  t: ModelTransport | undefined,
): { model_servers?: ModelServers } {
  if (t?.replay) return {};
  const servers: ModelServers = {};
  for (const model of [...spec.grid.model, ...Object.values(spec.fixed.role_models ?? {})]) {
    const p = model ? providerPrefix(model) : null;
    if (p === 'openai') servers.openai = serverOfUrl(t?.baseURL ?? OPENAI_DEFAULT_URL);
    if (p === 'anthropic') servers.anthropic = serverOfUrl(t?.anthropicBaseURL ?? ANTHROPIC_DEFAULT_URL);
  }
  return Object.keys(servers).length ? { model_servers: servers } : {};
}
