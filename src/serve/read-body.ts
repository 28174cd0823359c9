// A request body as JSON, read up to a size cap: what `bench serve` and the gateway both accept.
import type http from 'node:http';
import { apiError, type ApiError } from './protocol.ts';

/** Far above any real chat request; a larger body is refused before it is held whole. */
export const MAX_BODY = 16 * 1024 * 1024;

export async function readBody(req: http.IncomingMessage): Promise<{ value: unknown } | { error: ApiError }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return { error: apiError(413, `Request body larger than ${MAX_BODY} bytes`) };
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return { error: apiError(400, 'Request body is empty: send a JSON chat-completions request') };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: apiError(400, `Request body is not valid JSON (${(e as Error).message})`) };
  }
}
