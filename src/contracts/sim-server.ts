// The simulated models behind a private HTTP server (bench serve), as a higher layer starts one: the
// gateway puts one behind runs whose model is simulated, and is handed the starter by the command line
// (the gateway does not import bench serve).

export interface SimServer {
  url: string;
  close(): Promise<void>;
}

/** How a provider caches a prompt: OpenAI automatically, reads only; Anthropic reads and writes, each billed. */
export type CacheBilling = 'openai' | 'anthropic';
/** One rule for every request (a sweep's, at the one price it bills), or the rule for the model a request names. */
export type CacheRule = CacheBilling | ((model: string) => CacheBilling);

export interface SimServerOptions {
  promptCache: boolean;
  /** Whose prompt caching the usage follows (default OpenAI's); Anthropic's also reports cache writes. */
  cacheBilling?: CacheRule;
  /** Told when the sim plays a profile on tools that are not its own (see ServeOptions.onToolMapping). */
  onToolMapping?: (profile: string, notes: string[]) => void;
  /** Told what of a request the sim accepts and cannot act on (see ServeOptions.onIgnored). */
  onIgnored?: (route: string, parts: string[]) => void;
}

/** Starts a simulated upstream on a free port of 127.0.0.1, with no added latency and no faults. */
export type StartSim = (o: SimServerOptions) => Promise<SimServer>;
