// A request body read up to a size cap: what `bench serve` and the gateway both accept.
import type http from 'node:http';
import { BodyPool, type Lease } from './body-pool.ts';
import { wireError, type WireError } from './error.ts';

/** Far above any real chat request; a larger body is refused before it is held whole. */
export const MAX_BODY = 16 * 1024 * 1024;

/** Joins bodies without keeping them: each call's buffer is its own. */
const UNPOOLED = new BodyPool(0);

/** The body's bytes, refused past MAX_BODY; in one of `pool`'s buffers when it is large (the lease says when the bytes are free again). */
export function readBytes(
  req: http.IncomingMessage,
  pool: BodyPool = UNPOOLED,
): Promise<{ lease: Lease } | { error: WireError }> {
  // Events, not an async iterator: this runs once per proxied call.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) return void chunks.push(c);
      req.off('data', onData);
      req.resume();
      resolve({ error: wireError(413, `Request body larger than ${MAX_BODY} bytes`) });
    };
    req.on('data', onData);
    req.once('end', () => size <= MAX_BODY && resolve({ lease: pool.join(chunks, size) }));
    req.once('error', reject);
    req.once('close', () => !req.complete && reject(new Error('the request was cut off before its end')));
  });
}

/** The body as JSON. */
export async function readBody(req: http.IncomingMessage): Promise<{ value: unknown } | { error: WireError }> {
  const read = await readBytes(req);
  if ('error' in read) return read;
  const text = read.lease.bytes.toString('utf8');
  if (!text.trim()) return { error: wireError(400, 'Request body is empty: send a JSON chat-completions request') };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: wireError(400, `Request body is not valid JSON (${(e as Error).message})`) };
  }
}
