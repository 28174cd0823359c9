// Flags that say how non-simulated models are reached: base URL, timeout, retries, cassettes.
// None of this is a swept setting; the API key is read from the environment only.
import type { Command } from 'commander';
import { DEFAULT_TRANSPORT } from '../models/factory.ts';

export function addTransportOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'OpenAI-compatible API for openai: models (default: $OPENAI_BASE_URL, else OpenAI)')
    .option(
      '--request-timeout <s>',
      'seconds one HTTP attempt may take before it is retried',
      String(DEFAULT_TRANSPORT.timeoutMs / 1000),
    )
    .option(
      '--max-retries <n>',
      'retries per model call on 429 (honouring retry-after), 5xx, connection errors and timeouts',
      String(DEFAULT_TRANSPORT.maxRetries),
    )
    .option('--record <file>', 'record every answered model call to this cassette (JSON; added to if it exists)')
    .option(
      '--replay <file>',
      'answer every model call from this cassette, offline (default models: the ones recorded)',
    );
}
