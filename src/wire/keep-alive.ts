// How long a server keeps an idle client connection. Node's default (5 s) equals the idle expiry of
// common clients (Python's httpx: 5 s) and is close to undici's (4 s): a client that reuses its socket
// at that moment, or whose timers run late on a busy machine, sends into a socket the server just
// closed and gets a connection error ("fetch failed", UND_ERR_SOCKET) for a call that was never
// read. Agents pause between calls for tools and thought; the servers outlast those pauses as
// nginx does (75 s). server.close() still ends idle connections at once (Node ≥ 19).
import type http from 'node:http';

export const KEEP_ALIVE_MS = 75_000;

/** Gives `server` the idle-connection time above. */
export function keepIdleConnections(server: http.Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
}
