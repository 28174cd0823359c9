// Structured output: a final answer written as JSON, for `response_format` / `text.format` (the
// answer's text) or for a tool the request forces (the answer as that tool's arguments, as agents on
// the Anthropic API ask for JSON). The JSON is valid for the schema it is sent — every field the
// schema requires, in its types, enums and bounds — and says what the free-text answer says: its
// text in the string fields, its figures in the number fields, so a scenario's check still judges it.
import type { ResponseFormat, ToolSpec } from '../contracts/chat.ts';
import { synthesize, type Schema } from './json-schema.ts';
import { hash32 } from './rng.ts';

/**
 * The figures an answer states, its longest first (the headline result before the 1 and 100 of
 * "1..100"); digit groups such as 338,350 read as one number, the sim's own step mark is left out.
 */
function figures(text: string): number[] {
  const body = text.replace(/^(?:Answer|Thought) \d+:\s*/, '').replace(/(\d)[,_](?=\d{3}\b)/g, '$1');
  const found = [...body.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => m[0]);
  return found
    .sort((a, b) => b.replace(/\D/g, '').length - a.replace(/\D/g, '').length)
    .map(Number)
    .filter(Number.isFinite);
}

/** A value valid for `schema` that carries the answer `text`. */
function answerValue(schema: Schema, text: string): unknown {
  return synthesize(schema, schema, { args: {}, texts: [text], key: hash32(text), numbers: figures(text) });
}

/** The answer's text under a JSON response format. */
export function structuredText(format: ResponseFormat, text: string): string {
  if (format.type === 'json_object') return JSON.stringify({ answer: text });
  return JSON.stringify(answerValue(format.schema as Schema, text));
}

/** The answer as arguments of the tool a request forces. */
export function answerArguments(spec: ToolSpec, text: string): string {
  const schema = (spec.function.parameters ?? {
    type: 'object',
    properties: { answer: { type: 'string' } },
    required: ['answer'],
  }) as Schema;
  const value = answerValue(schema, text);
  return JSON.stringify(value && typeof value === 'object' && !Array.isArray(value) ? value : {});
}
