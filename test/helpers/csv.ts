// A CSV report read back as rows of named cells, quoting as csv-stringify writes it (RFC 4180).
import fs from 'node:fs';

/** RFC 4180 rows of a CSV file as objects (quoted fields may hold commas, quotes and line breaks). */
export function readCsv(file: string): Array<Record<string, string>> {
  const text = fs.readFileSync(file, 'utf8');
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (row.push(field), (field = ''));
    else if (c === '\n') (row.push(field), rows.push(row), (row = []), (field = ''));
    else field += c;
  }
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]!])));
}
