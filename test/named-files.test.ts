// What a budgets file (say, from a pull request) may make `bench check` read, and what an error may
// quote of a file; and credentials in a --base-url query string.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { redact } from '../src/models/redact.ts';
import { bench, fixture } from './helpers/cli.ts';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loopbench-named-files-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A budgets file in its own directory, with the given scenario entry fields. */
function budgetsIn(name: string, entry: string): { dir: string; file: string } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'budgets.yaml');
  fs.writeFileSync(file, `model: sim\nrepeats: 1\nscenarios:\n  - ${entry}\n    assertions: { steps: { max: 8 } }\n`);
  return { dir, file };
}

const SECRET = 'sk-proj-ENVIRONSECRET987654321';
const env = { ...process.env, OPENAI_API_KEY: SECRET };

describe('files a budgets file names must be regular files inside its tree or the working directory', () => {
  it('system_file: /proc/self/environ is refused before it is read: exit 2, nothing written, the key nowhere', async () => {
    const { dir, file } = budgetsIn(
      'environ',
      'scenario: tiny-agent-sum-of-squares\n    system_file: /proc/self/environ',
    );
    const out = path.join(dir, 'out');
    const r = await bench(['check', file, '-q', '-o', out], env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `bench: ${file}: scenarios[0].system_file: /proc/self/environ is outside the budgets file's directory and the working directory (pass --allow-outside-files to read it anyway)`,
    );
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('a symlink inside the tree that points outside it is refused too; goal_file and scenario alike', async () => {
    const { dir, file } = budgetsIn('symlink', 'scenario: ./linked.yaml');
    fs.symlinkSync('/etc/passwd', path.join(dir, 'linked.yaml'));
    const r = await bench(['check', file, '-q', '-o', path.join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`scenarios[0].scenario: ./linked.yaml is outside the budgets file's directory`);
    expect(r.stderr).not.toContain('root:');
    const goal = budgetsIn(
      'goal',
      'scenario: tiny-agent-sum-of-squares\n    goal_file: ../../../../../../etc/hostname',
    );
    const g = await bench(['check', goal.file, '-q', '-o', path.join(goal.dir, 'out')]);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain('scenarios[0].goal_file: ../../../../../../etc/hostname is outside');
  });

  it('a prompt file must be a regular file: a directory or a device is refused', async () => {
    const { dir, file } = budgetsIn('device', 'scenario: tiny-agent-sum-of-squares\n    system_file: ./prompts');
    fs.mkdirSync(path.join(dir, 'prompts'));
    const r = await bench(['check', file, '-q', '-o', path.join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`bench: ${file}: scenarios[0].system_file: ./prompts is not a regular file`);
  });

  it('--allow-outside-files reads a file outside the tree (and is the only way to)', async () => {
    const prompt = path.join(tmp, 'outside-prompt.md');
    fs.writeFileSync(prompt, 'You are a careful assistant. Use run_python for any computation, then answer plainly.\n');
    const { dir, file } = budgetsIn('allowed', `scenario: ${fixture('quick-sum.yaml')}\n    system_file: ${prompt}`);
    const refused = await bench(['check', file, '-q', '-o', path.join(dir, 'refused')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${prompt} is outside`);
    const r = await bench(['check', file, '-q', '--allow-outside-files', '-o', path.join(dir, 'out')]);
    expect(r.code, r.stderr).toBe(0);
    const transcript = fs.readdirSync(path.join(dir, 'out', 'transcripts'))[0]!;
    expect(fs.readFileSync(path.join(dir, 'out', 'transcripts', transcript), 'utf8')).toContain(
      'You are a careful assistant. Use run_python',
    );
  });

  it('a file that is not a scenario (shaped like /etc/shadow) is never echoed in the error', async () => {
    const { dir, file } = budgetsIn('shadow', 'scenario: ./shadow');
    const users = ['root:$y$j9T$HASHSECRET1$abc', 'daemon:*', 'bin:*', 'sys:*', 'alice:$6$salt$HASHSECRET2'];
    fs.writeFileSync(path.join(dir, 'shadow'), users.map((u) => `${u}:19700:0:99999:7:::\n`).join(''));
    const r = await bench(['check', file, '-q', '-o', path.join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '(top level): 5 unknown field(s), none shaped like a field name (is this the right file?)',
    );
    expect(r.stderr).not.toMatch(/HASHSECRET|daemon|alice/);
  });

  it('unknown fields are quoted a few at a time, and only field-name-shaped ones', async () => {
    const { dir, file } = budgetsIn('typos', 'scenario: ./typos.yaml');
    const scenario = fs.readFileSync(fixture('quick-sum.yaml'), 'utf8').replace(/^id: .*$/m, 'id: typos');
    fs.writeFileSync(
      path.join(dir, 'typos.yaml'),
      `${scenario}stepz: 1\ntimout: 2\nmodle: 3\nextra: 4\n"a line: with a secret SECRETLINE": 5\n`,
    );
    const r = await bench(['check', file, '-q', '-o', path.join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(top level): unknown field(s) 'stepz', 'timout', 'modle' and 2 more, not shown");
    expect(r.stderr).not.toContain('SECRETLINE');
  });
});

describe('--base-url credentials in the query string are masked like userinfo', () => {
  it('redact masks query-string credentials and keeps the rest of the URL', () => {
    expect(redact('http://proxy:8080/v1?api_key=QSECRET1&region=eu')).toBe(
      'http://proxy:8080/v1?api_key=***&region=eu',
    );
    expect(redact('https://h/v1?x=1&access_token=QSECRET2#frag')).toBe('https://h/v1?x=1&access_token=***#frag');
    expect(redact('--base-url=https://u:p@h/v1?key=QSECRET3')).toBe('--base-url=https://***@h/v1?key=***');
    expect(redact('https://h/v1?sig=QSECRET4;auth=QSECRET5')).toBe('https://h/v1?sig=***;auth=***');
  });

  it('meta.json and report.html hold the masked URL, never the secret', async () => {
    const out = path.join(tmp, 'query-url');
    const r = await bench([
      '--scenario',
      'tiny-agent-sum-of-squares',
      '-n',
      '1',
      '--base-url',
      'http://127.0.0.1:9/v1?api_key=QUERYSECRET42&region=eu',
      '-q',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const meta = fs.readFileSync(path.join(out, 'meta.json'), 'utf8');
    expect(meta).toContain('http://127.0.0.1:9/v1?api_key=***&region=eu');
    for (const f of fs.readdirSync(out, { recursive: true }) as string[]) {
      const p = path.join(out, f);
      if (fs.statSync(p).isFile()) expect(fs.readFileSync(p, 'latin1'), f).not.toContain('QUERYSECRET42');
    }
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('api_key=***');
  });

  it('a bad --base-url is quoted masked in its error', async () => {
    const r = await bench([
      '--scenario',
      'tiny-agent-sum-of-squares',
      '-n',
      '1',
      '--base-url',
      'ftp://h/v1?token=QUERYSECRET43',
      '-q',
      '--out',
      path.join(tmp, 'bad-url'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("bench: --base-url: 'ftp://h/v1?token=***' is not http or https");
  });
});
