// Tokens a request's tool definitions are billed, by the rule OpenAI's cookbook ("How to count
// tokens with tiktoken", counting tools) fitted to API-measured prompts of gpt-4o and gpt-4o-mini:
// its get_current_weather example measures 101 prompt tokens, 33 of them messages.
//
// The cookbook's rule covers flat parameters with a type, a description and an optional enum. It is
// extended here, in the same terms, to what it leaves out (README "How tokens are counted"):
// a missing description or type counts as empty, non-string enum values count as their JSON, and
// object properties and array items count their own properties and enums like top-level ones.
import type { ToolSpec } from '../contracts/chat.ts';

/** Once per request that sends tools. */
export const TOOLS_END = 12;
/** Per function, before its `name:description` line. */
export const FUNCTION_START = 7;
/** Before the properties of a schema that has any. */
export const PROPERTIES_START = 3;
/** Per property, before its `name:type:description` line. */
export const PROPERTY_START = 3;
/** Once per enum (the cookbook's enum_init: a list costs 3 less than its items' own 3 each). */
export const ENUM_START = -3;
/** Per enum value, besides the value's own tokens. */
export const ENUM_ITEM = 3;

type Schema = { type?: unknown; description?: unknown; enum?: unknown; properties?: unknown; items?: unknown };

const asSchema = (v: unknown): Schema => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : {});

/** A description as counted: without one trailing full stop, as the cookbook strips it. */
function described(d: unknown): string {
  const s = typeof d === 'string' ? d : '';
  return s.endsWith('.') ? s.slice(0, -1) : s;
}

function typeName(t: unknown): string {
  if (typeof t === 'string') return t;
  return Array.isArray(t) ? t.filter((x) => typeof x === 'string').join(' | ') : '';
}

function enumTokens(values: unknown, count: (text: string) => number): number {
  if (!Array.isArray(values)) return 0;
  let n = ENUM_START;
  for (const v of values) n += ENUM_ITEM + count(typeof v === 'string' ? v : JSON.stringify(v));
  return n;
}

/** What a schema holds below its own line: its properties, and an array's item enum and properties. */
function innerTokens(schema: Schema, count: (text: string) => number): number {
  let n = 0;
  const props = asSchema(schema.properties) as Record<string, unknown>;
  const keys = Object.keys(props);
  if (keys.length > 0) {
    n += PROPERTIES_START;
    for (const key of keys) n += propertyTokens(key, asSchema(props[key]), count);
  }
  if (schema.items !== undefined) {
    const items = asSchema(schema.items);
    n += enumTokens(items.enum, count) + innerTokens(items, count);
  }
  return n;
}

function propertyTokens(key: string, p: Schema, count: (text: string) => number): number {
  return (
    PROPERTY_START +
    count(`${key}:${typeName(p.type)}:${described(p.description)}`) +
    enumTokens(p.enum, count) +
    innerTokens(p, count)
  );
}

/** Tool-definition tokens of one request (0 without tools). `required` is not counted: the measured rule has no term for it. */
export function toolDefinitionTokens(tools: readonly ToolSpec[], count: (text: string) => number): number {
  if (tools.length === 0) return 0;
  let n = TOOLS_END;
  for (const t of tools) {
    const f = t.function;
    n += FUNCTION_START + count(`${f.name}:${described(f.description)}`) + innerTokens(asSchema(f.parameters), count);
  }
  return n;
}
