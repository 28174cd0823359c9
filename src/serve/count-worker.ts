// `bench serve`'s counting thread (offthread-count.ts): counts the long texts it is sent against the
// rank table the server passes it, the one the server itself counts with.
import { parentPort, workerData } from 'node:worker_threads';
import { countText, useSharedRanks } from '../meter/tokens.ts';

const port = parentPort!;
useSharedRanks((workerData as { ranks: Uint8Array }).ranks);
port.on('message', ({ id, texts }: { id: number; texts: string[] }) =>
  port.postMessage({ id, counts: texts.map(countText) }),
);
