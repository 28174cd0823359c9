#!/usr/bin/env node
// Writes a realistic message-list dump for `bench import --format messages`: a support agent's
// conversations, one JSON line each, as an app or a benchmark harness logs them — the final OpenAI-format
// message list (system, user, assistant turns with tool calls, tool results), the tool definitions sent,
// and an outcome (`reward`, 1 or 0). Lengths vary from 6 to 50 messages; long conversations are mostly the
// ones that went round in circles (the same search again, a lookup retried), and they fail more often.
// Deterministic: the same seed writes the same file.
//
//   node scripts/make-messages-fixture.mjs [-n 300] [--seed 7] [-o conversations.jsonl]
import fs from 'node:fs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const count = Number(flag('-n', '300'));
const seed = Number(flag('--seed', '7'));
const out = flag('-o', undefined);

/** mulberry32: a small seeded generator, so the fixture is the same file on every machine. */
function rng(s) {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(seed);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'search_docs',
      description: 'Search the help centre and return the best matching passages.',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'What to look for' } },
        required: ['query'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'get_order',
      description: 'Look up an order by its id.',
      parameters: {
        type: 'object',
        properties: { order_id: { type: 'string', description: 'The order id, e.g. A-10293' } },
        required: ['order_id'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'issue_refund',
      description: 'Refund an order, fully or in part.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string' },
          amount: { type: 'number', description: 'Amount in EUR' },
          reason: { type: 'string', enum: ['damaged', 'late', 'wrong_item', 'other'] },
        },
        required: ['order_id', 'amount', 'reason'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'send_email',
      description: 'Send the customer an email.',
      parameters: {
        type: 'object',
        properties: { subject: { type: 'string' }, body: { type: 'string' } },
        required: ['subject', 'body'],
      },
    },
  },
];

const SYSTEM = [
  'You are the support agent of an online shop selling home and kitchen goods.',
  'Answer the customer in their own language, politely and briefly.',
  'Use search_docs for policy questions, get_order before any statement about an order, issue_refund only within the refund policy',
  '(30 days, damaged or wrong items in full, late deliveries up to 20 %), and send_email to confirm what was done.',
  'Never promise what the tools have not confirmed. When the request is resolved, give a final answer without a tool call.',
].join(' ');

const ISSUES = [
  {
    ask: 'My kettle arrived with a cracked lid. Order {id}. Can I get my money back?',
    reason: 'damaged',
    topic: 'damaged item refund',
  },
  {
    ask: 'Order {id} was supposed to arrive last Tuesday and it still is not here. What can you do?',
    reason: 'late',
    topic: 'late delivery compensation',
  },
  {
    ask: 'I ordered the blue mixing bowls (order {id}) but got green ones.',
    reason: 'wrong_item',
    topic: 'wrong item exchange',
  },
  {
    ask: 'How long do I have to return the coffee grinder from order {id}? I changed my mind.',
    reason: 'other',
    topic: 'return window change of mind',
  },
  { ask: 'You charged me twice for order {id}, please fix it.', reason: 'other', topic: 'duplicate charge' },
];

const WORDS =
  'policy refund delivery carrier warehouse customer order item parcel tracking return window days damaged replacement voucher invoice payment card charge support team shipping address confirmation label courier'.split(
    ' ',
  );
const sentence = (n) => {
  const w = Array.from({ length: n }, () => pick(WORDS));
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return `${w.join(' ')}.`;
};
const paragraph = (sentences) => Array.from({ length: sentences }, () => sentence(int(8, 18))).join(' ');

function passages(query) {
  const n = int(2, 5);
  return Array.from({ length: n }, (_, i) => `[${i + 1}] ${query} — ${paragraph(int(2, 6))}`).join('\n');
}

function orderJson(id) {
  const items = Array.from({ length: int(1, 4) }, () => ({
    sku: `SKU-${int(1000, 9999)}`,
    name: pick(['kettle', 'mixing bowls', 'coffee grinder', 'chef knife', 'cutting board', 'tea towels']),
    price_eur: int(8, 120),
  }));
  return JSON.stringify({
    order_id: id,
    status: pick(['delivered', 'in_transit', 'delayed']),
    placed_days_ago: int(2, 40),
    items,
    total_eur: items.reduce((a, x) => a + x.price_eur, 0),
  });
}

let callSeq = 0;
function call(name, argsObj) {
  return {
    id: `call_${(++callSeq).toString(36).padStart(6, '0')}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(argsObj) },
  };
}

/** One conversation: the plan of tool calls, stretched by detours when it goes in circles. */
function conversation(n) {
  const issue = pick(ISSUES);
  const id = `A-${int(10000, 99999)}`;
  // Some apps log the conversation without its system prompt.
  const messages = [
    ...(rand() < 0.1 ? [] : [{ role: 'system', content: SYSTEM }]),
    { role: 'user', content: issue.ask.replace('{id}', id) },
  ];
  // Most conversations are short; a tail of them loops (the same search again, a lookup retried).
  const loops = rand() < 0.3;
  const rounds = loops ? int(8, 23) : int(2, 6);
  const plan = [
    ['search_docs', { query: issue.topic }],
    ['get_order', { order_id: id }],
  ];
  if (issue.reason !== 'other' || rand() < 0.5)
    plan.push(['issue_refund', { order_id: id, amount: int(10, 90), reason: issue.reason }]);
  plan.push(['send_email', { subject: `Your order ${id}`, body: paragraph(2) }]);
  for (let r = 0; r < rounds; r++) {
    const [name, a] =
      r < plan.length
        ? plan[r]
        : loops && rand() < 0.6
          ? ['search_docs', { query: issue.topic }]
          : pick([
              ['search_docs', { query: `${issue.topic} ${pick(WORDS)}` }],
              ['get_order', { order_id: id }],
            ]);
    const c = call(name, a);
    messages.push({ role: 'assistant', content: rand() < 0.6 ? sentence(int(6, 14)) : null, tool_calls: [c] });
    const result =
      name === 'search_docs'
        ? passages(a.query)
        : name === 'get_order'
          ? orderJson(id)
          : name === 'issue_refund'
            ? JSON.stringify({ ok: rand() < 0.9, refund_id: `R-${int(1000, 9999)}` })
            : JSON.stringify({ sent: true });
    messages.push({ role: 'tool', tool_call_id: c.id, content: result });
  }
  // A conversation cut off (the app's own step cap) ends on a tool result; the others answer.
  const cut = loops && rand() < 0.35;
  if (!cut) messages.push({ role: 'assistant', content: paragraph(int(1, 3)) });
  // Outcome as a grader scored it: short, finished conversations mostly succeed.
  const p = cut ? 0.05 : loops ? 0.35 : 0.85;
  return {
    conversation_id: `conv-${String(n).padStart(4, '0')}`,
    channel: pick(['chat', 'email']),
    model: 'gpt-4o-mini',
    tools: TOOLS,
    messages,
    reward: rand() < p ? 1 : 0,
  };
}

const lines = [];
for (let n = 1; n <= count; n++) lines.push(JSON.stringify(conversation(n)));
const text = `${lines.join('\n')}\n`;
if (out) fs.writeFileSync(out, text);
else process.stdout.write(text);
