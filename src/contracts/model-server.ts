// Where a provider's model calls went (OpenTelemetry's server.address / server.port on a chat span):
// recorded in meta.json by the sweep, read by the span exporters. Only host and port: never a path,
// a user or a password from the URL.

/** A model server's host and port. */
export interface ModelServer {
  address: string;
  port: number;
}

/** Servers by provider (the model spec's prefix: `openai`, `anthropic`). */
export type ModelServers = Record<string, ModelServer>;

/** The host and port of a base URL (the scheme's default port when it names none). */
export function serverOfUrl(url: string): ModelServer {
  const u = new URL(url);
  return { address: u.hostname, port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 };
}

/** The provider a model spec calls over the network (`openai:gpt-4o` → `openai`), or null for the sim and cassettes. */
export function providerPrefix(model: string): string | null {
  const m = /^(openai|anthropic):/.exec(model);
  return m ? m[1]! : null;
}
