// check.mjs drives `mailsift mcp` over stdio with the official TypeScript
// MCP SDK client and checks every answer against the contract's schemas
// (read from the contract document, mcp/testdata/mcp-contract-v1.md).
//
//   node check.mjs CONTRACT.md MAILSIFT [mailsift args...]
//
// It prints one JSON report on stdout and exits 1 on the first failure
// (the reason on stderr). mcp/node_client_test.go runs it.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const [contractPath, bin, ...args] = process.argv.slice(2);
if (!contractPath || !bin) {
  console.error('usage: node check.mjs CONTRACT.md MAILSIFT [args...]');
  process.exit(2);
}

function fail(msg) {
  console.error('check.mjs: ' + msg);
  process.exit(1);
}

// The contract's schemas, registered by their $id. The contract's ids and
// refs ("neuralmail/types.json#/...") are meant from one root, so both are
// made absolute under one base before registering.
const base = 'https://contract.invalid/';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
function absolute(v) {
  if (Array.isArray(v)) return v.map(absolute);
  if (v && typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = (k === '$id' || k === '$ref') && typeof x === 'string' ? base + x : absolute(x);
    return o;
  }
  return v;
}
const doc = readFileSync(contractPath, 'utf8');
for (const m of doc.matchAll(/```json\n([\s\S]*?)```/g)) {
  ajv.addSchema(absolute(JSON.parse(m[1])));
}
function check(id, value, what) {
  const v = ajv.getSchema(base + id);
  if (!v) fail(`no contract schema ${id}`);
  if (!v(value)) fail(`${what} breaks ${id}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(value)}`);
}

const report = { tools: {}, resources: {}, errors: {} };
const t0 = performance.now();
const transport = new StdioClientTransport({ command: bin, args, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'mailsift-check', version: '1.0.0' });
await client.connect(transport);
report.initialize_ms = Math.round(performance.now() - t0);
report.server = client.getServerVersion();

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const want = ['draft_reply_with_policy', 'extract_to_schema', 'get_thread', 'list_threads', 'search_inbox', 'send_reply', 'triage_email', 'triage_message'];
if (JSON.stringify(names) !== JSON.stringify(want)) fail(`tools ${names}, want ${want}`);
for (const t of tools) {
  const ro = t.annotations?.readOnlyHint === true;
  if (t.name === 'send_reply') {
    if (ro || t.annotations?.destructiveHint !== true || t.annotations?.openWorldHint !== true) fail(`send_reply annotations ${JSON.stringify(t.annotations)}`);
  } else if (t.name !== 'draft_reply_with_policy' && !ro) fail(`${t.name} is not readOnlyHint`);
  if (t.inputSchema?.additionalProperties !== false) fail(`${t.name} input schema allows additional properties`);
}

// call calls a tool that must succeed (the SDK client itself validates
// structuredContent against the tool's outputSchema) and checks the answer
// against the contract's output schema.
async function call(name, a) {
  const res = await client.callTool({ name, arguments: a });
  if (res.isError) fail(`${name}(${JSON.stringify(a)}) failed: ${res.content?.[0]?.text}`);
  if (name !== 'triage_email') check(`neuralmail/tools/${name}.output.json`, res.structuredContent, name);
  report.tools[name] = (report.tools[name] || 0) + 1;
  return res;
}

// bad calls a tool that must fail with the contract's error shape.
async function bad(name, a, code) {
  const res = await client.callTool({ name, arguments: a });
  if (!res.isError) fail(`${name}(${JSON.stringify(a)}) succeeded, want ${code}`);
  let e;
  try { e = JSON.parse(res.content[0].text); } catch (err) { fail(`${name} error is not JSON: ${res.content?.[0]?.text}`); }
  check('neuralmail/errors.json', e, `${name} error`);
  if (e.code !== code) fail(`${name} error code ${e.code} (${e.message}), want ${code}`);
  report.errors[name] = e.code;
}

const { resources } = await client.listResources();
const inboxURI = resources.find((r) => r.uri.startsWith('email://inboxes/'))?.uri;
if (!inboxURI) fail('no inbox resource');
const inbox = JSON.parse((await client.readResource({ uri: inboxURI })).contents[0].text);
check('neuralmail/resources/inbox.json', inbox, inboxURI);
const { resourceTemplates } = await client.listResourceTemplates();
if (resourceTemplates.length !== 5) fail(`${resourceTemplates.length} resource templates, want 5`);

const lt = (await call('list_threads', { inbox_id: inbox.id, limit: 2 })).structuredContent;
if (lt.threads.length !== 2 || !lt.next_cursor) fail(`list_threads limit 2: ${JSON.stringify(lt)}`);
const lt2 = (await call('list_threads', { inbox_id: inbox.id, limit: 2, cursor: lt.next_cursor })).structuredContent;
if (lt2.threads.some((t) => lt.threads.some((u) => u.id === t.id))) fail('the second page repeats a thread');
const thread = lt.threads[0];
const gt = (await call('get_thread', { thread_id: thread.id })).structuredContent;
if (!gt.messages?.length) fail('get_thread has no messages');
const msg = gt.messages[gt.messages.length - 1];
for (const [uri, id] of [[`email://threads/${thread.id}`, 'neuralmail/resources/thread.json'],
  [`email://threads/${thread.id}/summary`, 'neuralmail/resources/thread_summary.json'],
  [`email://messages/${msg.id}`, 'neuralmail/resources/message.json']]) {
  check(id, JSON.parse((await client.readResource({ uri })).contents[0].text), uri);
  report.resources[id] = uri;
}
const word = (thread.subject.match(/[A-Za-z]{4,}/) || ['mail'])[0];
const sr = await call('search_inbox', { inbox_id: inbox.id, query: word, top_k: 5 });
if (!sr.structuredContent.results.length) fail(`search_inbox ${word} found nothing`);
report.search_mode = sr._meta?.search_mode;
await call('triage_message', { message_id: msg.id, taxonomy_id: 'mailsift' });
const ex = await client.callTool({ name: 'extract_to_schema', arguments: { message_id: msg.id, schema_id: 'invoice' } });
if (ex.isError) {
  const e = JSON.parse(ex.content[0].text);
  check('neuralmail/errors.json', e, 'extract_to_schema error');
  report.extract = e.code;
} else {
  check('neuralmail/tools/extract_to_schema.output.json', ex.structuredContent, 'extract_to_schema');
  report.extract = 'ok';
}
const dr = await call('draft_reply_with_policy', { thread_id: thread.id, policy_id: 'default', goal: 'acknowledge' });
const key = 'node-check-1';
const s1 = await call('send_reply', { thread_id: thread.id, body_or_draft_id: 'Thanks, noted.', idempotency_key: key });
const s2 = await call('send_reply', { thread_id: thread.id, body_or_draft_id: 'Thanks, noted.', idempotency_key: key });
if (s1.structuredContent.status !== 'queued') fail(`send_reply status ${s1.structuredContent.status}, want queued`);
if (JSON.stringify(s1.structuredContent) !== JSON.stringify(s2.structuredContent) || s1._meta?.approval_id !== s2._meta?.approval_id) {
  fail('the same idempotency key gave another answer');
}
report.approval_id = s1._meta?.approval_id;
report.draft_id = dr._meta?.draft_id;
const te = await call('triage_email', {
  schema_version: '1.0',
  payload: { kind: 'single', principal: { email: 'me@example.org' },
    message: { message_id: 'n1', from: { email: 'bob@example.com' }, subject: 'Lunch?', body: 'Lunch on Friday?' } },
});
if (te.structuredContent.schema_version !== '1.0') fail('triage_email did not echo schema_version');

await bad('list_threads', {}, 'invalid_argument');
await bad('list_threads', { inbox_id: inbox.id, limit: 0 }, 'invalid_argument');
await bad('get_thread', { thread_id: 'thr-999999999' }, 'not_found');
await bad('search_inbox', { inbox_id: inbox.id, query: 'x', top_k: 99 }, 'invalid_argument');
await bad('triage_message', { message_id: msg.id, taxonomy_id: 'nope' }, 'not_found');
await bad('extract_to_schema', { message_id: msg.id }, 'invalid_argument');
await bad('draft_reply_with_policy', { thread_id: thread.id, policy_id: 'default' }, 'invalid_argument');
await bad('send_reply', { thread_id: thread.id, body_or_draft_id: 'x', idempotency_key: key, confirm: true }, 'invalid_argument');
await bad('send_reply', { thread_id: thread.id, body_or_draft_id: 'other text', idempotency_key: key }, 'conflict');
await bad('triage_email', { payload: {} }, 'invalid_argument');

await client.close();
report.ok = true;
console.log(JSON.stringify(report));
