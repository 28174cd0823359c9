// The fenced code blocks of a Markdown page, each with the heading it sits under: what a test runs
// when a page's commands and files are to be run as written.
import fs from 'node:fs';

export interface CodeBlock {
  /** The nearest heading above the block, without its #s. */
  heading: string;
  /** The fence's info string (`yaml`, `sh`, or ''). */
  lang: string;
  text: string;
}

export function codeBlocks(file: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  let heading = '';
  let open: CodeBlock | null = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (open) {
      if (line.startsWith('```')) {
        out.push(open);
        open = null;
      } else open.text += `${line}\n`;
    } else if (line.startsWith('```')) open = { heading, lang: line.slice(3).trim(), text: '' };
    else if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '').trim();
  }
  return out;
}
