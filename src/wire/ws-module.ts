// The ws package, loaded when a WebSocket server or client is made, not when `bench` starts: every
// command's modules are imported at start-up (about 0.1 s of CPU for ws), and most commands open no
// WebSocket. createRequire loads it synchronously at that point, so nothing about when a socket is
// accepted changes.
import { createRequire } from 'node:module';
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';

/** What require('ws') gives: the client class, with the server class on it. */
type Ws = typeof WebSocket & { WebSocketServer: typeof WebSocketServer };

const require = createRequire(import.meta.url);

export const wsModule = (): Ws => require('ws') as Ws;
