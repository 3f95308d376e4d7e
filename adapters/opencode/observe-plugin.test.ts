import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { observerPluginEventSchema } from '../../schemas/generated/observer-plugin-event.js';
import { checkSchema } from '../../core/skit/schemas.js';
import { tempDir } from '../../test-support/index.js';
import { renderOpenCodePlugin } from './observe-plugin.js';

type Hooks = Record<string, (input: unknown, output?: unknown) => Promise<void>>;

async function loadPlugin(dir: string, port: number): Promise<Hooks> {
  const file = join(dir, `plugin-${port}.mjs`);
  await writeFile(file, renderOpenCodePlugin(port, join(dir, 'spool', 'opencode.jsonl'), '0.1.0'));
  const mod = (await import(pathToFileURL(file).href)) as { ForgeObserve: (ctx: unknown) => Promise<Hooks> };
  return mod.ForgeObserve({ directory: '/work/proj' });
}

/** Drives the plugin like OpenCode does: a loaded skill, another tool, a denied skill. */
async function drive(h: Hooks): Promise<void> {
  await h['chat.message']({ sessionID: 'ses_1' }, { message: { id: 'msg_1' }, parts: [] });
  await h['tool.execute.before']({ tool: 'skill', sessionID: 'ses_1', callID: 'call_1' }, { args: { name: 'review' } });
  await h['tool.execute.after']({ tool: 'skill', sessionID: 'ses_1', callID: 'call_1', args: { name: 'review' } }, { title: 'Loaded skill: review', output: '<skill_content name="review">SECRET BODY é</skill_content>', metadata: { name: 'review', dir: '/work/proj/.opencode/skills/review', truncated: false } });
  await h['tool.execute.before']({ tool: 'bash', sessionID: 'ses_1', callID: 'call_2' }, { args: { command: 'cat secret.txt' } });
  await h['tool.execute.after']({ tool: 'bash', sessionID: 'ses_1', callID: 'call_2', args: { command: 'cat secret.txt' } }, { title: 'bash', output: 'top secret', metadata: {} });
  await h['tool.execute.before']({ tool: 'skill', sessionID: 'ses_1', callID: 'call_3' }, { args: { name: 'summarize' } });
  await h.event({ event: { type: 'message.part.updated', properties: { part: { type: 'tool', tool: 'skill', sessionID: 'ses_1', callID: 'call_3', state: { status: 'error', input: { name: 'summarize' }, error: 'The user has specified a rule which prevents you from using this specific tool call' } } } } });
  await h.event({ event: { type: 'message.part.updated', properties: { part: { type: 'text', text: 'hello' } } } });
  await h['tool.execute.after']({ tool: 'read', sessionID: 'ses_other', callID: 'call_9' }, { output: 'x', metadata: {} });
}

describe('the Forge OpenCode plugin (observe)', () => {
  it('posts schema-valid, metadata-only events for the skill tool, and other tools only once a skill is loaded', async () => {
    const tmp = await tempDir();
    const bodies: unknown[] = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        assert.equal(req.url, '/forge/v1/events');
        bodies.push(JSON.parse(b));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"accepted":1,"rejected":0}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await drive(await loadPlugin(tmp.path, (server.address() as AddressInfo).port));
      for (const b of bodies) assert.deepEqual(checkSchema(observerPluginEventSchema, b), [], JSON.stringify(b));
      const ev = bodies as Record<string, unknown>[];
      assert.deepEqual(ev.map((e) => `${e.kind}:${e.call_id}`), ['skill.before:call_1', 'skill.after:call_1', 'tool.after:call_2', 'skill.before:call_3', 'skill.error:call_3']);
      assert.equal(ev[1].skill_dir, '/work/proj/.opencode/skills/review');
      assert.equal(ev[1].output_bytes, Buffer.byteLength('<skill_content name="review">SECRET BODY é</skill_content>'));
      assert.equal(ev[1].turn_id, 'msg_1');
      assert.equal(ev[1].cwd, '/work/proj');
      assert.equal(ev[4].error_kind, 'permission_denied');
      const all = JSON.stringify(bodies);
      for (const secret of ['SECRET BODY', 'cat secret.txt', 'top secret', 'prevents you']) assert.ok(!all.includes(secret), `leaked ${secret}`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await tmp.cleanup();
    }
  });

  it('spools to a file and carries on when the observer is down', async () => {
    const tmp = await tempDir();
    try {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      await drive(await loadPlugin(tmp.path, port));
      const lines = (await readFile(join(tmp.path, 'spool', 'opencode.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(lines.length, 5);
      assert.equal(typeof lines[0].at, 'number');
      assert.equal(lines[0].message.type, 'event');
      assert.equal(lines[0].message.event.kind, 'skill.before');
    } finally {
      await tmp.cleanup();
    }
  });
});
