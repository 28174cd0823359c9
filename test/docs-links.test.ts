// The README is one screen and the front door to docs/: every page linked from it, every relative
// link and anchor in the README and the pages resolving to a file and a heading that exist.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const pages = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
const files = ['README.md', ...pages.map((f) => `docs/${f}`)];

/** GitHub's anchors for a Markdown file's headings (outside code blocks). */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let code = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) code = !code;
    const m = !code && /^#{1,6} (.*)$/.exec(line);
    if (m)
      out.add(
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      );
  }
  return out;
}

describe('README and docs/', () => {
  it('the README fits one screen (≤ 120 lines) and links every docs page', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(120);
    expect(pages.length).toBeGreaterThanOrEqual(10);
    for (const page of pages) expect(readme, page).toContain(`](docs/${page}`);
  });

  it('every relative link and anchor resolves', () => {
    const broken: string[] = [];
    for (const file of files) {
      const abs = path.join(root, file);
      for (const [, link] of fs.readFileSync(abs, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^https?:/.test(link!)) continue;
        const [target, anchor] = link!.split('#');
        const to = target ? path.resolve(path.dirname(abs), target) : abs;
        if (!fs.existsSync(to)) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor && to.endsWith('.md') && !anchors(to).has(anchor))
          broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  // A merge resolved by hand once left both sides of a table in docs/performance.md, markers and all.
  // The side markers only: a line of seven '=' alone can be a Markdown heading's underline.
  it('no page holds the conflict markers of an unfinished merge', () => {
    const marked = files.flatMap((file) =>
      fs
        .readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/^(<{7}|>{7})( |$)/.test(line) ? [`${file}:${i + 1}: ${line}`] : [])),
    );
    expect(marked).toEqual([]);
  });
});
