import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import type { OtlpLogsRequest } from '../telemetry/otlp/types.js';
import { codexSessionCwd, codexSessionLookup } from './codex-sessions.js';
import { HostSessionSource, hostSessionIds } from './host-sessions.js';

const ID = '01a22ab6-83e3-7d92-a9d3-0342e95de985';

async function rollout(home: string, at: Date, id: string, first: string): Promise<void> {
  const p = (n: number) => String(n).padStart(2, '0');
  const dir = join(home, 'sessions', String(at.getUTCFullYear()), p(at.getUTCMonth() + 1), p(at.getUTCDate()));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `rollout-2026-11-30T04-28-54-${id}.jsonl`), `${first}\n{"type":"turn_context"}\n`);
}

const logs = (service: string, ids: string[]): OtlpLogsRequest => ({
  signal: 'logs',
  resources: [{ resource: { attributes: { 'service.name': service } }, scopes: [{ scope: { name: 'codex_otel.log_only' }, items: ids.map((id) => ({ timeUnixNano: '0', observedTimeUnixNano: '0', attributes: { 'conversation.id': id } })) }] }],
});

describe('Codex session registration from rollout files', () => {
  it('reads the cwd Codex recorded in the session_meta line of the conversation\'s rollout file', async () => {
    const tmp = await tempDir();
    try {
      const now = new Date();
      const meta = { timestamp: now.toISOString(), type: 'session_meta', payload: { id: ID, cwd: '/work/proj', base_instructions: { text: 'x'.repeat(200_000) } } };
      await rollout(tmp.path, now, ID, JSON.stringify(meta));
      assert.equal(await codexSessionCwd(tmp.path, ID, now), '/work/proj');
      assert.equal(await codexSessionCwd(tmp.path, '01a22ab6-0000-7d92-a9d3-0342e95de985', now), undefined, 'unknown conversation');
      assert.equal(await codexSessionCwd(tmp.path, '../../etc', now), undefined, 'ids are never paths');
      assert.equal(await codexSessionCwd(join(tmp.path, 'absent'), ID, now), undefined);
      const other = '01a22ab6-1111-7d92-a9d3-0342e95de985';
      await rollout(tmp.path, now, other, JSON.stringify({ type: 'session_meta', payload: { id: 'someone-else', cwd: '/x' } }));
      assert.equal(await codexSessionCwd(tmp.path, other, now), undefined, 'the line must name the same conversation');

      assert.deepEqual(hostSessionIds(logs('codex_exec', [ID, ID, other]), 'codex', 'conversation.id'), [ID, other]);
      assert.deepEqual(hostSessionIds(logs('claude-code', [ID]), 'codex', 'conversation.id'), []);
      const registered: [string, string][] = [];
      const sink = { touch: (_h: string, id: string) => registered.some(([x]) => x === id), register: async (_h: string, id: string, found: { cwd: string }) => void registered.push([id, found.cwd]) };
      const source = new HostSessionSource(codexSessionLookup(tmp.path), sink);
      await source.registerFrom(logs('codex_exec', [ID, other]));
      await source.registerFrom(logs('codex_exec', [ID, other]));
      assert.deepEqual(registered, [[ID, '/work/proj']]);
    } finally {
      await tmp.cleanup();
    }
  });

  it('finds the rollout of a conversation started days ago (resumed, or running across midnights)', async () => {
    const tmp = await tempDir();
    try {
      // Codex conversation ids are UUIDv7: the first 48 bits are the start time in ms
      const started = new Date(Date.now() - 3 * 86_400_000);
      const hex = started.getTime().toString(16).padStart(12, '0');
      const v7 = `${hex.slice(0, 8)}-${hex.slice(8)}-7811-a6d8-d7a6749bb675`;
      await rollout(tmp.path, started, v7, JSON.stringify({ type: 'session_meta', payload: { id: v7, cwd: '/work/resumed' } }));
      assert.equal(await codexSessionCwd(tmp.path, v7), '/work/resumed');
      // an id that names no time: the most recent day directories are searched
      const plain = 'aaaaaaaa-1111-4222-8333-444444444444';
      await rollout(tmp.path, new Date(Date.now() - 10 * 86_400_000), plain, JSON.stringify({ type: 'session_meta', payload: { id: plain, cwd: '/work/older' } }));
      assert.equal(await codexSessionCwd(tmp.path, plain), '/work/older');
    } finally {
      await tmp.cleanup();
    }
  });
});
