// The Portkey gateway (`@portkey-ai/gateway`), a real peer measured beside the gateway by bench perf
// when it is installed: pinned in test-clients/ (`npm ci --prefix test-clients`, which CI runs; kept
// out of the quick start's install like the agent CLIs there), in loopbench's own node_modules, or
// in the node_modules of the directory bench perf runs in. It is started as its README starts it
// (`start-server.js --port=N --headless`) and sent what it needs to reach the stub upstream: the
// provider `openai` and the stub's URL as its custom host.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from '../contracts/paths.ts';
import type { SpawnedServer } from '../serve/spawn.ts';

export const PORTKEY_PACKAGE = '@portkey-ai/gateway';

export interface PortkeyInstall {
  version: string;
  script: string;
}

/** Where Portkey is installed, or null. */
export function findPortkey(): PortkeyInstall | null {
  let manifest: string;
  try {
    manifest = createRequire(path.join(ROOT, 'package.json')).resolve(`${PORTKEY_PACKAGE}/package.json`, {
      paths: [path.join(ROOT, 'test-clients'), ROOT, process.cwd()],
    });
  } catch {
    return null;
  }
  const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
    version?: string;
    bin?: string | Record<string, string>;
  };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  if (!bin) return null;
  return { version: pkg.version ?? '?', script: path.join(path.dirname(manifest), bin) };
}

/** The headers that route a request through Portkey to `upstream` (an OpenAI-compatible base URL). */
export const portkeyHeaders = (upstream: string): Record<string, string> => ({
  'x-portkey-provider': 'openai',
  'x-portkey-custom-host': upstream,
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Portkey in its own process; its base URL once it says it is ready. */
export async function spawnPortkey(install: PortkeyInstall): Promise<SpawnedServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [install.script, `--port=${port}`, '--headless'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready for connections')) resolve();
    });
    void exited.then(() => reject(new Error(`${PORTKEY_PACKAGE} exited before listening: ${out.slice(-300)}`)));
  });
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    pid: child.pid!,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
