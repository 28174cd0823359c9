// What bench serve accepts of the coding-agent CLIs' requests and cannot act on, said once: the fields,
// tool types and conversation parts the sim leaves unread, from the requests the real CLIs send.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ignoredParts, READ_PARTS } from '../src/serve/ignored-parts.ts';
import { serve } from './serve-helpers.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'coding-clients');
const body = (file: string) =>
  (JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as { body: Record<string, unknown> }).body;

describe('what the sim ignores', () => {
  it("Claude Code's request: thinking, context management and metadata are fields the sim does not read", () => {
    expect(ignoredParts(body('claude-code-messages-request.json'), READ_PARTS['/v1/messages']!)).toEqual([
      'the fields context_management, metadata, thinking',
    ]);
  });

  it("Codex CLI's request: its namespace and web_search tools, its reasoning and cache fields", () => {
    expect(ignoredParts(body('codex-responses-request.json'), READ_PARTS['/v1/responses']!)).toEqual([
      'the fields client_metadata, include, prompt_cache_key, reasoning',
      'tools of type namespace, web_search',
    ]);
  });

  it('signed thinking blocks sent back, server tools and encrypted reasoning items are named by type', () => {
    const messages = {
      model: 'm',
      max_tokens: 5,
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'x', signature: 's' },
            { type: 'redacted_thinking', data: 'd' },
            { type: 'text', text: 'hi' },
          ],
        },
      ],
      tools: [
        { name: 'Bash', input_schema: {} },
        { type: 'web_search_20250305', name: 'web_search' },
      ],
    };
    expect(ignoredParts(messages, READ_PARTS['/v1/messages']!)).toEqual([
      'tools of type web_search_20250305',
      'content blocks of type redacted_thinking, thinking',
    ]);
    const responses = {
      model: 'm',
      input: [
        { role: 'user', content: 'x' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'e' },
      ],
    };
    expect(ignoredParts(responses, READ_PARTS['/v1/responses']!)).toEqual(['input items of type reasoning']);
  });

  it('bench serve says it once per protocol and set of parts, and answers', async () => {
    const told: Array<[string, string[]]> = [];
    const server = await serve({ profile: 'tiny-agent', onIgnored: (route, parts) => told.push([route, parts]) });
    try {
      const post = () =>
        fetch(`${server.url}/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'm',
            input: 'x',
            store: false,
            prompt_cache_key: 'k',
            tools: [{ type: 'web_search' }],
          }),
        });
      for (const r of [await post(), await post()]) expect(r.status).toBe(200);
      expect(told).toEqual([['/v1/responses', ['the field prompt_cache_key', 'tools of type web_search']]]);
    } finally {
      await server.close();
    }
  });
});
