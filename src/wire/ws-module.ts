// The ws package, loaded when a WebSocket server or client is made (contracts/lazy-package.ts).
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';
import { lazyPackage } from '../contracts/lazy-package.ts';

/** What require('ws') gives: the client class, with the server class on it. */
type Ws = typeof WebSocket & { WebSocketServer: typeof WebSocketServer };

export const wsModule = lazyPackage<Ws>('ws');
