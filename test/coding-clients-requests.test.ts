// What Claude Code and Codex CLI really send on their default settings, captured by a scripted
// provider on 127.0.0.1 from the pinned versions in test-clients/. The redacted fixtures under
// test/fixtures/coding-clients/ are these requests (the sim and the gateway are tested against them);
// this test checks that the live clients still send that shape, and that the fixtures hold no key.
// Rewrite the fixtures after a version bump: UPDATE_CLIENT_FIXTURES=1 npx vitest run test/coding-clients-requests.test.ts
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentUpstream, usageFor, type AgentUpstream } from './helpers/agent-upstream.ts';
import { clientHome, FAKE_KEY, runClaude, runCodex } from './helpers/coding-clients.ts';
import { systemTool } from './helpers/system-tools.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'coding-clients');
const CLAUDE_FIXTURE = path.join(FIXTURES, 'claude-code-messages-request.json');
const CODEX_FIXTURE = path.join(FIXTURES, 'codex-responses-request.json');

type Json = Record<string, unknown>;

/** Text with the private home, session / device ids (UUIDs) and device hashes replaced by placeholders. */
const scrub = (text: string, home: string) =>
  text
    .split(home)
    .join('/home/user')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '00000000-0000-0000-0000-000000000000')
    .replace(/[0-9a-f]{64}/g, '0'.repeat(64));

/** A captured request with what identifies a machine or a session replaced, and every credential removed. */
function redact(req: AgentUpstream['requests'][number], home: string): Json {
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([k]) => !['x-api-key', 'authorization', 'host', 'content-length'].includes(k)),
  );
  return {
    method: req.method,
    path: req.path,
    headers: JSON.parse(scrub(JSON.stringify(headers), home)) as Json,
    body: JSON.parse(scrub(req.body, home)) as Json,
  };
}

/** What a server must accept of a request: its fields, the roles and item types of its conversation, its tools' names and types. */
function shape(body: Json): Json {
  const list = (v: unknown) => (Array.isArray(v) ? (v as Json[]) : []);
  const conversation = list(body.messages ?? body.input).map(
    (m) => `${String(m.type ?? 'message')}:${String(m.role ?? '')}`,
  );
  return {
    fields: Object.keys(body).sort(),
    conversation,
    tools: list(body.tools).map((t) => `${String(t.type ?? '(none)')}:${String(t.name ?? '')}`),
  };
}

function checkFixture(file: string, captured: Json): void {
  const text = `${JSON.stringify(captured, null, 1)}\n`;
  expect(text).not.toContain(FAKE_KEY);
  if (process.env.UPDATE_CLIENT_FIXTURES) {
    fs.mkdirSync(FIXTURES, { recursive: true });
    fs.writeFileSync(file, text);
  }
  const fixture = JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
  expect(shape(captured.body as Json)).toEqual(shape(fixture.body as Json));
}

let upstream: AgentUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const ONE_ANSWER = [{ kind: 'text', text: 'The sum of squares is 338350.', usage: usageFor(1, 0) }] as const;

describe('what the coding-agent CLIs send', () => {
  it.skipIf(!systemTool('claude-code', 'Claude Code request capture'))(
    'Claude Code: one streamed Messages request with its own fields, the key only in x-api-key',
    async () => {
      upstream = await agentUpstream(ONE_ANSWER);
      const where = clientHome('claude');
      const r = await runClaude(upstream.url, 'compute the sum of squares 1..100', where);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        type: 'result',
        is_error: false,
        result: 'The sum of squares is 338350.',
      });
      const calls = upstream.requests.filter((q) => q.method === 'POST');
      expect(calls.map((q) => q.path)).toEqual(['/v1/messages?beta=true']);
      const req = calls[0]!;
      expect(req.headers['x-api-key']).toBe(FAKE_KEY);
      const body = JSON.parse(req.body) as Json;
      // The fields the issue lists: a system message inside `messages`, adaptive thinking, context
      // management, output effort, metadata.user_id as a JSON string, 64000 max_tokens, always streaming.
      expect(body).toMatchObject({
        stream: true,
        max_tokens: 64000,
        thinking: { type: 'adaptive' },
        output_config: { effort: expect.any(String) },
      });
      expect(body.context_management).toBeTypeOf('object');
      expect(JSON.parse((body.metadata as { user_id: string }).user_id)).toHaveProperty('session_id');
      expect((body.messages as Json[]).map((m) => m.role)).toContain('system');
      const tools = body.tools as Json[];
      expect(tools.map((t) => t.name)).toContain('Bash');
      expect(tools.every((t) => t.type === undefined)).toBe(true);
      checkFixture(CLAUDE_FIXTURE, redact(req, where.home));
    },
  );

  it.skipIf(!systemTool('codex', 'Codex CLI request capture'))(
    'Codex CLI: one streamed Responses request with its own fields, the key only in authorization',
    async () => {
      upstream = await agentUpstream(ONE_ANSWER);
      const where = clientHome('codex');
      const r = await runCodex(upstream.url, 'compute the sum of squares 1..100', where);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('The sum of squares is 338350.');
      const calls = upstream.requests.filter((q) => q.method === 'POST');
      expect(calls.map((q) => q.path)).toEqual(['/v1/responses']);
      const req = calls[0]!;
      expect(req.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
      const body = JSON.parse(req.body) as Json;
      expect(body).toMatchObject({
        stream: true,
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: expect.any(String),
        client_metadata: expect.any(Object),
      });
      expect(body).not.toHaveProperty('max_output_tokens');
      expect((body.input as Json[]).map((m) => m.role)).toContain('developer');
      const types = new Set((body.tools as Json[]).map((t) => t.type));
      expect(types).toEqual(new Set(['function', 'namespace', 'web_search']));
      expect((body.tools as Json[]).map((t) => t.name)).toContain('exec_command');
      checkFixture(CODEX_FIXTURE, redact(req, where.home));
    },
  );
});
