import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { ConfigError, UsageError } from '../contracts/errors.ts';
import { readInputFile } from '../contracts/input-file.ts';
import { lazyPackage } from '../contracts/lazy-package.ts';

/** Where in the file a zod issue points, e.g. `limits.max_steps` or `tools[1].name`. */
export function issuePath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const k of p) out += typeof k === 'number' ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out || '(top level)';
}

// yaml is loaded on the first file read, not when `bench` starts (contracts/lazy-package.ts).
const yaml = lazyPackage<typeof Yaml>('yaml');

const MAX_ISSUES = 6;
/** Unknown keys quoted in an error; the rest are counted. */
const MAX_KEYS_QUOTED = 3;

/** A key worth quoting: shaped like a field name (a typo of one), not a line of some other file. */
const FIELD_NAME = /^[A-Za-z0-9_.-]{1,40}$/;

/**
 * At most a few keys, and only field-name-shaped ones: a file that is not what it was said to be
 * (say /etc/shadow, whose lines parse as YAML keys) is never echoed into an error.
 */
function unknownFields(keys: readonly string[]): string {
  const named = keys.filter((k) => FIELD_NAME.test(k));
  const shown = named.slice(0, MAX_KEYS_QUOTED).map((k) => `'${k}'`);
  const rest = keys.length - shown.length;
  const other = keys.length - named.length;
  if (shown.length === 0)
    return `${keys.length} unknown field(s), none shaped like a field name (is this the right file?)`;
  return `unknown field(s) ${shown.join(', ')}${rest > 0 ? ` and ${rest} more${other > 0 ? ', not shown' : ''}` : ''}`;
}

export function formatZodError(file: string, error: z.ZodError): string {
  const issues = error.issues.map((i) => {
    const where = issuePath(i.path);
    if (i.code === 'unrecognized_keys') return `${where}: ${unknownFields(i.keys)}`;
    if (i.code === 'invalid_type' && i.message.endsWith('received undefined'))
      return `${where}: missing (expected ${i.expected})`;
    return `${where}: ${i.message}`;
  });
  // One line, however broken the file: the first few problems and a count of the rest.
  const more = issues.length > MAX_ISSUES ? `; and ${issues.length - MAX_ISSUES} more` : '';
  return `${file}: ${issues.slice(0, MAX_ISSUES).join('; ')}${more}`;
}

/** The same one line, as a ConfigError that also carries the first problem's field. */
export function zodConfigError(file: string, error: z.ZodError): ConfigError {
  const text = formatZodError(file, error).slice(file.length + 2);
  const field = issuePath(error.issues[0]?.path ?? []);
  return text.startsWith(`${field}: `)
    ? new ConfigError(file, field, text.slice(field.length + 2))
    : new ConfigError(file, null, text);
}

/** Parse YAML text and validate it; any problem becomes a ConfigError naming the file and field. */
export function parseYaml<T extends z.ZodType>(text: string, file: string, schema: T): z.infer<T> {
  // logLevel 'error': odd-but-legal YAML (a list as a key) becomes an unknown field, not a process warning.
  const doc = yaml().parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: true,
    logLevel: 'error',
  });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new UsageError(`${file}: invalid YAML: ${e.message.split('\n')[0]!.replace(/:$/, '')}`);
  }
  if (doc.contents === null) throw new UsageError(`${file}: the file is empty (expected a YAML mapping of fields)`);
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (e) {
    // An alias bomb or an unresolved alias surfaces only here, as a ReferenceError.
    throw new UsageError(`${file}: invalid YAML: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw zodConfigError(file, parsed.error);
  return parsed.data;
}

export function loadYamlFile<T extends z.ZodType>(file: string, schema: T): z.infer<T> {
  return parseYaml(readInputFile(file), file, schema);
}
