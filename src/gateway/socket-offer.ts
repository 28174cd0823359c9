// Whether the gateway will accept a run's Responses WebSocket, so Codex CLI is told to try one only
// then: against an upstream without it, Codex retries the refused upgrade several times before it
// falls back to POST, seconds lost in every session. The simulated model (and a replay) is answered
// by the gateway's side itself, which always has it; an OpenAI upstream is asked once per sweep.
import type { Upstream } from './upstream.ts';
import { probeUpstreamSocket } from './upstream-socket.ts';

/** One sweep's answers, each upstream probed once (concurrent runs share the probe). */
export function socketOffer(probe: (up: Upstream) => Promise<boolean> = probeUpstreamSocket) {
  const probed = new Map<string, Promise<boolean>>();
  return (up: Upstream): Promise<boolean> => {
    if (up.speaks === undefined) return Promise.resolve(true);
    // The gateway relays the Responses API to an OpenAI upstream only (for another, Codex's calls are refused anyway).
    if (up.speaks !== 'openai') return Promise.resolve(false);
    let answer = probed.get(up.url);
    if (!answer) probed.set(up.url, (answer = probe(up)));
    return answer;
  };
}
