// The task queue's prompts carry their data in `## Section` blocks. Agent code writes them; any model
// (a real one reads them as prose) can use them, and the simulated model parses them back, so it
// stays stateless: everything it needs is in the request.

export type Sections = Record<string, string>;

export function writeSections(sections: Sections): string {
  return Object.entries(sections)
    .map(([name, body]) => `## ${name}\n${body}`)
    .join('\n\n');
}

export function readSections(text: string): Sections {
  const out: Sections = {};
  const parts = text.split(/^## (.+)$/m);
  for (let i = 1; i + 1 < parts.length; i += 2) out[parts[i]!.trim()] = parts[i + 1]!.trim();
  return out;
}

export const bulletList = (items: readonly string[]) =>
  items.length ? items.map((t) => `- ${t}`).join('\n') : '(empty)';
export const numberedList = (items: readonly string[]) => items.map((t, i) => `${i + 1}. ${t}`).join('\n');

/** Lines of a list without their bullets or numbers; `(empty)` is no item. */
export function listItems(body: string | undefined): string[] {
  if (!body || body === '(empty)') return [];
  return body
    .split('\n')
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim())
    .filter(Boolean);
}

/** A created task states how it advances the goal as `<task> (goal: <link>)`. */
const LINKED = /^(.*?)\s*\(goal:\s*(.+?)\)\s*$/i;

export interface CreatedTask {
  task: string;
  /** The stated link to the goal; null when the task gives none. */
  link: string | null;
}

export const formatCreated = (t: CreatedTask) => (t.link ? `${t.task} (goal: ${t.link})` : t.task);

/** The creator's answer: one task per line; "No new tasks." (or nothing) is none. */
export function parseCreated(text: string): CreatedTask[] {
  return listItems(text)
    .filter((l) => !/^no new tasks\b/i.test(l))
    .map((l) => {
      const m = LINKED.exec(l);
      return m ? { task: m[1]!.trim(), link: m[2]!.trim() } : { task: l, link: null };
    })
    .filter((t) => t.task.length > 0);
}
