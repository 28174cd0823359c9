// A conversation sent as an array of items that are not one chat message each (the Responses API:
// an assistant's text and its function calls are separate items; Anthropic: one user turn holds
// several tool results), read as chat messages so that a run's next request costs what it adds:
// the items the run's last request had at the same place (json-body.ts finds them by their bytes)
// are not parsed again, and their messages are that request's own objects, which the token
// counter has counted once. Only the last of those messages is made again, from its items: an
// item after it may extend it (a function call joins the assistant's text before it).
import type { Buffer } from 'node:buffer';
import type { ChatMessage } from '../contracts/chat.ts';
import type { WireError } from './error.ts';
import { keepArray, type PriorArray, type ScannedArray } from './json-body.ts';

/** What is kept of a request's items for the run's next request. */
export interface ItemsState {
  array: PriorArray;
  /** The chat messages the items made (after those `start` gave), and for each the item that began it. */
  messages: ChatMessage[];
  from: number[];
  /** Per item: how many messages there were after it, and whether it carries more than text. */
  ends: number[];
  beyond: Uint8Array;
}

/** Reads one item (its place, for errors) or refuses it. */
export type ReadItem<I> = (body: Buffer, k: number) => { ok: true; value: I } | { ok: false; error: WireError };
/** Adds an item's messages to `out` (or extends its last); true when the item carries more than text (images, reasoning): its tokens are the provider's to count. */
export type AddItem<I> = (item: I, out: ChatMessage[]) => boolean;

/**
 * The items of `array` as chat messages after `start`'s. `prior` is the run's last request's state,
 * for requests whose conversation is all in the array (none when `start` has messages).
 */
export function readItems<I>(
  body: Buffer,
  array: ScannedArray,
  prior: ItemsState | null,
  start: readonly ChatMessage[],
  read: ReadItem<I>,
  add: AddItem<I>,
): { ok: true; state: ItemsState; beyondText: boolean } | { ok: false; error: WireError } {
  const n = array.bounds.length / 2;
  const offset = start.length;
  // Items before `redo` are the prior's: their messages before `keep` are taken as they are.
  let redo = 0;
  let keep = 0;
  if (prior && offset === 0 && array.prefix > 0) {
    const made = prior.ends[array.prefix - 1]!;
    redo = made > 0 ? prior.from[made - 1]! : array.prefix;
    keep = made;
    while (keep > 0 && prior.from[keep - 1]! >= redo) keep--;
  }
  const messages = [...start, ...(prior && keep ? prior.messages.slice(0, keep) : [])];
  const from = prior && keep ? prior.from.slice(0, keep) : [];
  const ends = prior && redo ? prior.ends.slice(0, redo) : [];
  const beyond = new Uint8Array(n);
  if (prior && redo) beyond.set(prior.beyond.subarray(0, redo));
  for (let k = redo; k < n; k++) {
    const item = read(body, k);
    if (!item.ok) return item;
    const before = messages.length;
    beyond[k] = add(item.value, messages) ? 1 : 0;
    for (let i = before; i < messages.length; i++) from.push(k);
    ends[k] = messages.length - offset;
  }
  return {
    ok: true,
    state: {
      array: keepArray(body, array, prior?.array ?? null),
      messages: offset ? messages.slice(offset) : messages,
      from,
      ends,
      beyond,
    },
    beyondText: beyond.includes(1),
  };
}

/** Bytes an ItemsState holds (for the bound on conversations kept), roughly: its array's copy twice over (the messages hold the same text). */
export const itemsBytes = (s: ItemsState | null) => (s ? 2 * s.array.length + 16 * s.ends.length : 0);
