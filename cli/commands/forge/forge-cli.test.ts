import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir, runSf, tempDir } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';

/** The built `sf forge <command>`; stdin as bytes (invalid UTF-8 included). */
const runForge = (command: 'parse' | 'check' | 'fetch', args: string[], input?: Buffer | string) => runSf(['forge', command, ...args], { input });

const BUILDER_BAD = '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `b`\n**Commits**: a1b2c3d\n**Files changed**: many\n\n<!-- FORGE:BUILDER:COMPLETE -->\n';

describe('sf forge: diagnostics, input checks and fetch limits (built CLI)', () => {
  let server: ThreadServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('text-mode diagnostics of a Markdown body name the file (or stdin) and the line (defect 13)', async () => {
    const dir = await tempDir('forge-cli-');
    try {
      const file = join(dir.path, 'notes.md');
      await writeFile(file, BUILDER_BAD);
      const r = await runForge('parse', [file]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6 +error +FORGE_VALUE_INVALID`, 'm'));
      assert.ok(!r.stdout.includes('(skit)'), r.stdout);
      const stdin = await runForge('check', ['-', '--require', 'BUILDER'], BUILDER_BAD);
      assert.match(stdin.stdout, /^\(stdin\):6 +error +FORGE_VALUE_INVALID/m);
    } finally {
      await dir.cleanup();
    }
  });

  it('check --labels is described as a file (or - for stdin), which it is (cliux D10)', async () => {
    const help = await runForge('check', ['--help']);
    assert.match(help.stdout, /--labels <str> +- labels file \(JSON: .*; - for stdin\)/);
    const dir = await tempDir('forge-cli-');
    try {
      const file = join(dir.path, 'comments.json');
      await writeFile(file, '[]');
      const r = await runForge('check', [file, '--labels', '-', '--json'], '["workflow:building"]');
      assert.deepEqual(JSON.parse(r.stdout).labels.labels, ['workflow:building']);
      const both = await runForge('check', ['-', '--labels', '-'], '[]');
      assert.equal(both.code, 2);
      assert.match(both.stderr, /SF_E_USAGE.*cannot both be read from stdin/);
    } finally {
      await dir.cleanup();
    }
  });

  it('warns about input that is not valid UTF-8, and about broken JSON read as Markdown', async () => {
    const bytes = Buffer.concat([Buffer.from('line one\n<!-- FORGE:GATE_FAILED -->\nbad \u00e9 '), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]);
    const r = await runForge('parse', ['--json'], bytes);
    const out = JSON.parse(r.stdout) as { diagnostics: { code: string; line?: number }[] };
    assert.deepEqual(out.diagnostics.map((d) => [d.code, d.line]), [['FORGE_INPUT_ENCODING', 3]]);
    const broken = await runForge('check', ['-', '--require', 'GATE_FAILED'], '[\n {"id":1,"user":{"login":"a"},"body":"<!-- FORGE:GATE_FAILED -->"},\n]');
    assert.match(broken.stdout, /^\(stdin\):3:1 +warning +FORGE_INPUT_NOT_JSON/m);
  });

  it('fetch --max-pages is an option, passed to the fetcher (defect 8)', async () => {
    const worked = JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'threads', 'worked-example.github.json'), 'utf8')) as unknown[];
    server = await startThreadServer({ threads: { 'acme/payments#128': worked } });
    const base = ['--api', server.url, '--repo', 'acme/payments', '--issue', '128', '--per-page', '1'];
    const limited = await runForge('fetch', [...base, '--max-pages', '2']);
    assert.equal(limited.code, 6, limited.stderr);
    assert.match(limited.stderr, /^error\[SF_E_LIMIT\]: the thread has more than 2 pages\n  hint: raise --max-pages \(now 2\)/m);
    const enough = await runForge('fetch', [...base, '--max-pages', '3', '--json']);
    assert.equal(enough.code, 0, enough.stderr);
    assert.equal(JSON.parse(enough.stdout).comments.length, 3);
  });

  it('fetch says a retried server error is one, not a rate limit, and keeps stderr JSON-only with --json (D16)', async () => {
    const refuse = (status: number) => startThreadServer({
      threads: {},
      intercept: (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"message":"down"}');
        return true;
      },
    });
    const args = (url: string) => ['--api', url, '--repo', 'acme/payments', '--issue', '1'];
    server = await refuse(503);
    const human = await runForge('fetch', args(server.url));
    assert.equal(human.code, 7, human.stderr);
    assert.equal(human.stderr.match(/^waiting 0 s to retry after a server error \(HTTP 503, retry-after 0\)$/gm)?.length, 3, human.stderr);
    assert.doesNotMatch(human.stderr, /rate limit/);
    const json = await runForge('fetch', [...args(server.url), '--json']);
    assert.equal(json.code, 7);
    assert.equal(JSON.parse(json.stderr).error.code, 'SF_E_UNAVAILABLE', 'stderr is the error object alone');
    await server.close();
    server = await refuse(429);
    const limited = await runForge('fetch', args(server.url));
    assert.match(limited.stderr, /^waiting 0 s for the rate limit \(HTTP 429, retry-after 0\)$/m);
  });

  it('render names an unknown type before asking for --data', async () => {
    const r = await runSf(['forge', 'render', 'BOGUS']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error\[SF_E_ANNOTATION\]: cannot render FORGE:BOGUS: it is not a type this implementation knows\n  hint: known types: .*INVESTIGATOR/m);
    assert.ok(!r.stderr.includes('--data'), r.stderr);
  });

  it('evidence --since takes RFC 3339 only, and only with --observations', async () => {
    const data = JSON.stringify({ installations: [] });
    const bogus = await runSf(['forge', 'evidence', '--data', '-', '--observations', '/dev/null', '--since', 'last tuesday'], { input: data });
    assert.equal(bogus.code, 2, bogus.stderr);
    assert.match(bogus.stderr, /^error\[SF_E_USAGE\]: --since "last tuesday" is not an RFC 3339 date or time/m);
    const feb30 = await runSf(['forge', 'evidence', '--data', '-', '--observations', '/dev/null', '--since', '2026-02-30'], { input: data });
    assert.equal(feb30.code, 2, feb30.stderr);
    const alone = await runSf(['forge', 'evidence', '--data', '-', '--since', '2026-08-09'], { input: data });
    assert.equal(alone.code, 2, alone.stderr);
    assert.match(alone.stderr, /--since filters observations, and no --observations file was given/);
    const ok = await runSf(['forge', 'evidence', '--data', '-', '--observations', '/dev/null', '--since', '2026-08-09T10:00:00+02:00', '--json'], { input: data });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
