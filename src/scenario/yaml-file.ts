import fs from 'node:fs';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { UsageError } from '../cli/errors.ts';

/** Where in the file a zod issue points, e.g. `limits.max_steps` or `tools[1].name`. */
export function issuePath(p: readonly PropertyKey[]): string {
  let out = '';
  for (const k of p) out += typeof k === 'number' ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out || '(top level)';
}

export function formatZodError(file: string, error: z.ZodError): string {
  const issues = error.issues.map((i) => {
    const where = issuePath(i.path);
    if (i.code === 'unrecognized_keys') return `${where}: unknown field(s) ${i.keys.map((k) => `'${k}'`).join(', ')}`;
    return `${where}: ${i.message}`;
  });
  return `${file}: ${issues.join('; ')}`;
}

/** Parse YAML text and validate it; any problem becomes a UsageError naming the file and field. */
export function parseYaml<T extends z.ZodType>(text: string, file: string, schema: T): z.infer<T> {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new UsageError(`${file}: invalid YAML: ${e.message.split('\n')[0]}`);
  }
  const parsed = schema.safeParse(doc.toJS());
  if (!parsed.success) throw new UsageError(formatZodError(file, parsed.error));
  return parsed.data;
}

export function loadYamlFile<T extends z.ZodType>(file: string, schema: T): z.infer<T> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`${file}: cannot read file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  return parseYaml(text, file, schema);
}
