import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '../../test-support/index.js';
import { hookCommand, renderClaudeHook } from './observe-hook.js';

/** Runs the hook like Claude Code does: through a shell, hook JSON on stdin. */
function runHook(command: string, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const hookInput = (cwd: string) => JSON.stringify({
  session_id: '2f1c-ab', transcript_path: '/tmp/t.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse',
  tool_name: 'Skill', tool_input: { skill: 'review', args: '{"cwd":"/elsewhere","session_id":"forged"}' }, tool_use_id: 'toolu_1',
});

describe('the Claude Code Skill hook (bash)', () => {
  it('registers the session with cwd and the host pid over /forge/v1/messages, prints nothing, exits 0', async () => {
    const tmp = await tempDir('sf hook ');
    const got: { url?: string; body: string; length: number }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        got.push({ url: req.url, body, length: Number(req.headers['content-length']) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('[{"ok":true}]');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const script = join(tmp.path, 'claude hook.sh');
      await writeFile(script, renderClaudeHook((server.address() as AddressInfo).port, join(tmp.path, 'spool', 'claude-code.jsonl')));
      await chmod(script, 0o755);
      const cwd = '/work/pröj "x"';
      const run = await runHook(hookCommand(script), hookInput(cwd));
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, '', '']);
      assert.equal(got.length, 1);
      assert.equal(got[0].url, '/forge/v1/messages');
      assert.equal(got[0].length, Buffer.byteLength(got[0].body), 'Content-Length counts bytes');
      const msg = JSON.parse(got[0].body);
      assert.deepEqual(Object.keys(msg).sort(), ['agent', 'cwd', 'pid', 'session_id', 'type'], 'only the fields of a register message');
      assert.equal(msg.type, 'register');
      assert.equal(msg.agent, 'claude-code');
      assert.equal(msg.session_id, '2f1c-ab', 'the top-level session id, not one inside the tool input');
      assert.equal(msg.cwd, cwd);
      // the shell Claude ran the hook with is skipped: the pid is the shell's parent (this test process)
      assert.equal(msg.pid, process.pid);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await tmp.cleanup();
    }
  });

  it('spools the registration when the observer is down, still exiting 0 silently', async () => {
    const tmp = await tempDir();
    try {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      const script = join(tmp.path, 'hook.sh');
      await writeFile(script, renderClaudeHook(port, join(tmp.path, 'spool', 'claude-code.jsonl')));
      await chmod(script, 0o755);
      const run = await runHook(script, hookInput('/work/proj'));
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, '', '']);
      const [line] = (await readFile(join(tmp.path, 'spool', 'claude-code.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(Math.abs(line.at - Date.now() / 1000) < 60);
      assert.equal(line.message.session_id, '2f1c-ab');
      // garbage in: nothing sent, nothing spooled, still exit 0
      assert.equal((await runHook(script, 'not json')).code, 0);
    } finally {
      await tmp.cleanup();
    }
  });

  it('never produces a command Git AI would take for its own', () => {
    assert.throws(() => hookCommand('/home/git-ai/checkpoint/hook.sh'));
    assert.equal(hookCommand('/home/me/.sf/observe/hooks/claude-code-skill.sh'), '/home/me/.sf/observe/hooks/claude-code-skill.sh');
    assert.equal(hookCommand("/home/o'neil/x y.sh"), `'/home/o'\\''neil/x y.sh'`);
  });
});
