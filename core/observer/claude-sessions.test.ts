import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir, tempDir } from '../../test-support/index.js';
import { claudeConfigDirOf, claudeLiveSession, claudeSessionCwd, claudeSessionLookup } from './claude-sessions.js';

/** The first lines of a transcript the real Claude Code 2.1.328 wrote (paths under /home/dev/work). */
const HEAD = join(fixturesDir, 'host-transcripts', 'claude-code', 'head.jsonl');
const ID = '3c1ca80b-e63b-4956-a8ed-8eca7bd51066';
const line = (o: Record<string, unknown>) => JSON.stringify({ type: 'user', sessionId: ID, ...o }) + '\n';

describe('Claude Code session registration from transcripts', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let projects: string;
  const transcript = (dir: string, id: string, text: string) => mkdir(join(projects, dir), { recursive: true }).then(() => writeFile(join(projects, dir, `${id}.jsonl`), text));
  beforeEach(async () => {
    tmp = await tempDir();
    projects = join(tmp.path, 'projects');
    await mkdir(join(projects, '-home-dev-other', 'memory'), { recursive: true });
  });
  afterEach(() => tmp.cleanup());

  it('reads the cwd from the first line of the real transcript shape that names the session (queue lines have none)', async () => {
    const head = await readFile(HEAD, 'utf8');
    assert.equal(JSON.parse(head.split('\n')[0]).cwd, undefined, 'the fixture starts with queue records');
    await transcript('-home-dev-work-my-proj-x', ID, head);
    assert.equal(await claudeSessionCwd(tmp.path, ID), '/home/dev/work/my proj.x');
    assert.equal(await claudeSessionCwd(tmp.path, '3c1ca80b-0000-4956-a8ed-8eca7bd51066'), undefined, 'another session');
    assert.equal(await claudeSessionCwd(join(tmp.path, 'absent'), ID), undefined, 'no config dir');
  });

  it('finds nothing until the first line with a cwd is written (the retry case), then finds it', async () => {
    await transcript('-p', ID, (await readFile(HEAD, 'utf8')).split('\n').slice(0, 2).join('\n') + '\n');
    assert.equal(await claudeSessionCwd(tmp.path, ID), undefined);
    await appendFile(join(projects, '-p', `${ID}.jsonl`), line({ cwd: '/srv/p' }).slice(0, 30));
    assert.equal(await claudeSessionCwd(tmp.path, ID), undefined, 'a torn line is not read');
    await appendFile(join(projects, '-p', `${ID}.jsonl`), line({ cwd: '/srv/p' }).slice(30));
    assert.equal(await claudeSessionCwd(tmp.path, ID), '/srv/p');
  });

  it('rejects ids that are not ids, relative or odd cwds and lines of another session', async () => {
    // a well-formed transcript for "../x" would sit at projects/x.jsonl: the id never reaches a path
    await writeFile(join(projects, 'x.jsonl'), JSON.stringify({ sessionId: '../x', cwd: '/etc' }) + '\n');
    for (const bad of ['../x', '..', 'a/b/c/d/e', 'short', '', `${ID}\n`, 'x'.repeat(200)]) assert.equal(await claudeSessionCwd(tmp.path, bad), undefined, bad);
    await transcript('-a', ID, line({ cwd: 'relative/dir' }) + line({ cwd: 42 }) + line({ cwd: '/a\u0000b' }) + line({ sessionId: 'someone-else-0000', cwd: '/other' }) + '[1,2]\nnot json\nnull\n');
    assert.equal(await claudeSessionCwd(tmp.path, ID), undefined);
    await appendFile(join(projects, '-a', `${ID}.jsonl`), line({ cwd: '/good' }));
    assert.equal(await claudeSessionCwd(tmp.path, ID), '/good', 'the first line that qualifies');
  });

  it('skips a huge first line, gives up past its byte budget, and never opens a FIFO or a directory named like a transcript', async () => {
    const huge = line({ cwd: '/huge', message: { content: 'p'.repeat(2 * 1024 * 1024) } });
    await transcript('-h', ID, huge + line({ cwd: '/after-huge' }));
    assert.equal(await claudeSessionCwd(tmp.path, ID), '/after-huge', 'a pasted 2 MB prompt line is skipped, the next line answers');
    await transcript('-h', ID, 'q'.repeat(5 * 1024 * 1024) + '\n' + line({ cwd: '/too-late' }));
    assert.equal(await claudeSessionCwd(tmp.path, ID), undefined, 'nothing past the first 4 MiB');
    await transcript('-h', ID, Array.from({ length: 100 }, () => line({ cwd: 'rel' })).join('') + line({ cwd: '/line-101' }));
    assert.equal(await claudeSessionCwd(tmp.path, ID), undefined, 'nothing past the first 64 lines');
    const fifoId = '3c1ca80b-ffff-4956-a8ed-8eca7bd51066';
    execFileSync('mkfifo', [join(projects, '-h', `${fifoId}.jsonl`)]);
    await mkdir(join(projects, '-h', 'dddddddd-dddd.jsonl'));
    assert.equal(await claudeSessionCwd(tmp.path, fifoId), undefined);
    assert.equal(await claudeSessionCwd(tmp.path, 'dddddddd-dddd'), undefined);
  });

  it('uses $CLAUDE_CONFIG_DIR, else ~/.claude of the observer\'s environment', () => {
    assert.equal(claudeConfigDirOf({ CLAUDE_CONFIG_DIR: '/cfg', HOME: '/h' }), '/cfg');
    assert.equal(claudeConfigDirOf({ CLAUDE_CONFIG_DIR: '', HOME: '/h' }), '/h/.claude');
  });
});

describe('Claude Code running-session records ($CLAUDE_CONFIG_DIR/sessions/<pid>.json)', () => {
  /** A record the real Claude Code 2.1.328 kept while `claude -p` ran (cwd and session id replaced). */
  const RECORD = join(fixturesDir, 'host-transcripts', 'claude-code', 'session-record.json');
  let tmp: { path: string; cleanup: () => Promise<void> };
  let sessions: string;
  beforeEach(async () => {
    tmp = await tempDir();
    sessions = join(tmp.path, 'sessions');
    await mkdir(sessions, { recursive: true });
  });
  afterEach(() => tmp.cleanup());

  it('gives the pid, cwd and version of a running session, and is preferred to the transcript', async () => {
    await writeFile(join(sessions, '12916.json'), await readFile(RECORD));
    await writeFile(join(sessions, '12916.c2f2103b.key'), '{"peerToken":"x"}');
    assert.deepEqual(await claudeLiveSession(tmp.path, ID), { cwd: '/home/dev/work/my proj.x', pid: 12916, hostVersion: '2.1.328' });
    await mkdir(join(tmp.path, 'projects', '-elsewhere'), { recursive: true });
    await writeFile(join(tmp.path, 'projects', '-elsewhere', `${ID}.jsonl`), line({ cwd: '/elsewhere' }));
    assert.deepEqual(await claudeSessionLookup(tmp.path).find(ID), { cwd: '/home/dev/work/my proj.x', pid: 12916, hostVersion: '2.1.328' });
  });

  it('falls back to the transcript once the record is gone (claude -p removes it when it exits)', async () => {
    await mkdir(join(tmp.path, 'projects', '-srv-p'), { recursive: true });
    await writeFile(join(tmp.path, 'projects', '-srv-p', `${ID}.jsonl`), line({ cwd: '/srv/p' }));
    assert.equal(await claudeLiveSession(tmp.path, ID), undefined);
    assert.deepEqual(await claudeSessionLookup(tmp.path).find(ID), { cwd: '/srv/p' });
  });

  it('trusts no pid the file name disagrees with, and skips other sessions, torn, oversized and odd records', async () => {
    const record = JSON.parse(await readFile(RECORD, 'utf8')) as Record<string, unknown>;
    await writeFile(join(sessions, '111.json'), JSON.stringify({ ...record, sessionId: 'aaaaaaaa-0000-4000-8000-000000000000' }));
    await writeFile(join(sessions, '222.json'), JSON.stringify(record).slice(0, 40));
    await writeFile(join(sessions, '333.json'), JSON.stringify({ ...record, cwd: 'relative/dir' }));
    await writeFile(join(sessions, '444.json'), JSON.stringify({ ...record, padding: 'x'.repeat(70_000) }));
    await writeFile(join(sessions, 'x.json'), JSON.stringify(record)); // not named after a pid
    assert.equal(await claudeLiveSession(tmp.path, ID), undefined);
    await writeFile(join(sessions, '555.json'), JSON.stringify({ ...record, version: 'x; rm -rf /' }));
    assert.deepEqual(await claudeLiveSession(tmp.path, ID), { cwd: '/home/dev/work/my proj.x' }, 'pid 12916 is not file 555; the version is not a version');
    assert.equal(await claudeLiveSession(tmp.path, '../sessions/555'), undefined, 'not a session id');
  });

  it('does not hang on a FIFO named like a record', async () => {
    execFileSync('mkfifo', [join(sessions, '777.json')]);
    assert.equal(await claudeLiveSession(tmp.path, ID), undefined);
  });
});
