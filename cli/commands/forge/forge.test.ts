import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fixturesDir, runSf, tempDir } from '../../../test-support/index.js';
import { startThreadServer, type ThreadServer } from '../../../test-support/forge-thread-server.js';

/** CLI tests run dist/: build first with `npx tsc -p .`. */
const fx = (p: string) => join(fixturesDir, 'annotations', p);
const WORKED = fx('threads/worked-example.github.json');

describe('sf forge', () => {
  describe('check', () => {
    it('the worked example (spec 9) passes: ok per type, complete, terminal label, exit 0', async () => {
      const r = await runSf(['forge', 'check', WORKED, '--require', 'INVESTIGATOR,BUILDER,FORGE:TRAJECTORY', '--labels', fx('labels/worked-example.github.json')]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.stdout.trim().split('\n'), [
        'ok   FORGE:INVESTIGATOR (1)',
        'ok   FORGE:BUILDER (1)',
        'ok   FORGE:TRAJECTORY (1)',
        'investigator complete',
        'builder complete',
        'trajectory complete (by structure: the spec defines no sentinel for this type)',
        'labels: ["workflow:merged"]',
        'terminal: workflow:merged (processing stops)',
        'result: PASS (3 required)',
      ]);
    });

    it('exits 1 when a requirement fails (default 7.3 list; an interrupted annotation)', async () => {
      const missing = await runSf(['forge', 'check', WORKED]);
      assert.equal(missing.code, 1);
      assert.match(missing.stdout, /^MISS FORGE:CONTRACT$/m);
      const interrupted = await runSf(['forge', 'check', fx('threads/interrupted.gitlab.json'), '--require', 'INVESTIGATOR,BUILDER', '--labels', fx('labels/gitlab.json')]);
      assert.equal(interrupted.code, 1);
      assert.match(interrupted.stdout, /builder INCOMPLETE \(interrupted/);
      assert.match(interrupted.stdout, /terminal: needs-human/);
    });

    it('--json gives the structured report; input may come from stdin', async () => {
      const r = await runSf(['forge', 'check', '-', '--require', 'INVESTIGATOR,BUILDER,TRAJECTORY', '--json'], { input: readFileSync(WORKED, 'utf8') });
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.ok, true);
      assert.deepEqual(report.entries.map((e: { tag: string; status: string }) => [e.tag, e.status]), [['FORGE:INVESTIGATOR', 'complete'], ['FORGE:BUILDER', 'complete'], ['FORGE:TRAJECTORY', 'complete']]);
      assert.equal(report.labels.labels, null);
    });

    it('rejects a bad --require list as a usage error', async () => {
      const r = await runSf(['forge', 'check', WORKED, '--require', 'INVESTIGATOR,{TYPE}']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /SF_E_USAGE/);
    });
  });

  describe('parse', () => {
    it('lists the annotations of a Gitea thread; --json has the structure', async () => {
      const r = await runSf(['forge', 'parse', fx('threads/lifecycle.gitea.json')]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^11 annotations in 9 comments \(gitea\)$/m);
      assert.match(r.stdout, /FORGE:ACME_SECURITY_SCAN \(unknown\)/);
      const j = JSON.parse((await runSf(['forge', 'parse', fx('threads/lifecycle.gitea.json'), '--json'])).stdout);
      assert.equal(j.annotations.length, 11);
      assert.equal(j.annotations[0].fields.verdict, 'CONFIRMED');
    });

    it('reads a Markdown body from stdin and exits 1 on error findings', async () => {
      const ok = await runSf(['forge', 'parse', '--json'], { input: readFileSync(fx('spec/9.1-builder.md'), 'utf8') });
      assert.equal(ok.code, 0);
      assert.equal(JSON.parse(ok.stdout).platform, 'markdown');
      const bad = await runSf(['forge', 'parse', fx('spec/4.1-investigator.md')]);
      assert.equal(bad.code, 1);
      assert.match(bad.stdout, /FORGE_ENUM_INVALID/);
    });
  });

  describe('render', () => {
    it('renders the exact template with the sentinel last, and --partial', async () => {
      const r = await runSf(['forge', 'render', 'BUILDER', '--data', fx('render/builder.json')]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trimEnd().split('\n').at(-1), '<!-- FORGE:BUILDER:COMPLETE -->');
      const p = await runSf(['forge', 'render', 'forge:builder', '--data', '-', '--partial', '--json'], { input: '{"branch": "b"}' });
      assert.equal(p.code, 0, p.stderr);
      assert.equal(JSON.parse(p.stdout).body, '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: `b`\n\n<!-- FORGE:BUILDER:PARTIAL -->');
      assert.equal((await runSf(['forge', 'render', 'GATE_FAILED'])).stdout, '<!-- FORGE:GATE_FAILED -->\n');
    });

    it('refuses a missing required field with a hint naming it (exit 1)', async () => {
      const r = await runSf(['forge', 'render', 'INVESTIGATOR', '--data', '-'], { input: '{"verdict": "CONFIRMED"}' });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /SF_E_ANNOTATION/);
      assert.match(r.stderr, /required field "confidence" \(\*\*Confidence\*\*\) is missing/);
      assert.match(r.stderr, /hint: add "confidence"/);
    });
  });

  describe('evidence', () => {
    it('renders FORGE:SKIT_EVIDENCE from JSON installations and observations', async () => {
      const r = await runSf(['forge', 'evidence', '--data', fx('evidence/evidence.json')]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trimEnd().split('\n');
      assert.equal(lines[0], '<!-- FORGE:SKIT_EVIDENCE -->');
      assert.equal(lines.at(-1), '<!-- FORGE:SKIT_EVIDENCE:COMPLETE -->');
      const back = JSON.parse((await runSf(['forge', 'parse', '--json'], { input: r.stdout })).stdout);
      assert.equal(back.annotations[0].status, 'complete');
      assert.equal(back.annotations[0].fields.active.length, 4);
      const bad = await runSf(['forge', 'evidence', '--data', '-'], { input: '{"installations": [{"skitId": "x"}]}' });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /installations\[0\]\.skitId/);
    });
  });

  describe('fetch', () => {
    let server: ThreadServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('reads a paginated thread with the token from FORGE_TOKEN, never printing it; the output feeds check', async () => {
      server = await startThreadServer({ threads: { 'acme/payments#128': JSON.parse(readFileSync(WORKED, 'utf8')) }, labels: { 'acme/payments#128': JSON.parse(readFileSync(fx('labels/worked-example.github.json'), 'utf8')) }, token: 'tok-abc-123' });
      const dir = await tempDir();
      try {
        const out = join(dir.path, 'thread.json');
        const r = await runSf(['forge', 'fetch', '--api', server.url, '--repo', 'acme/payments', '--issue', '128', '--per-page', '1', '--out', out], { env: { FORGE_TOKEN: 'tok-abc-123' } });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /3 comments in 3 pages from acme\/payments#128; labels: \["bug","workflow:merged"\]/);
        assert.ok(!(r.stdout + r.stderr).includes('tok-abc-123'));
        assert.equal(server.requests.length, 4);
        const check = await runSf(['forge', 'check', out, '--require', 'INVESTIGATOR,BUILDER,TRAJECTORY']);
        assert.equal(check.code, 0, check.stdout);
        assert.match(check.stdout, /terminal: workflow:merged/);
        const saved = JSON.parse(await readFile(out, 'utf8'));
        assert.equal(saved.comments.length, 3);
      } finally {
        await dir.cleanup();
      }
    });

    it('does not send GITHUB_TOKEN to a host other than api.github.com; auth errors exit 8', async () => {
      server = await startThreadServer({ threads: { 'acme/payments#128': [] }, token: 'needed' });
      const r = await runSf(['forge', 'fetch', '--api', server.url, '--repo', 'acme/payments', '--issue', '128', '--json'], { env: { FORGE_TOKEN: '', GITHUB_TOKEN: 'ghp_should_not_leak' } });
      assert.equal(r.code, 8);
      assert.match(r.stderr, /SF_E_AUTH/);
      assert.deepEqual(server.requests.map((q) => q.authorization), [undefined]);
      assert.ok(!r.stderr.includes('ghp_should_not_leak'));
    });

    it('waits out a retry-after and reports the wait on stderr', async () => {
      let first = true;
      server = await startThreadServer({
        threads: { 'acme/payments#128': JSON.parse(readFileSync(WORKED, 'utf8')) },
        intercept: (_req, res) => {
          if (!first) return false;
          first = false;
          res.writeHead(429, { 'retry-after': '0' });
          res.end();
          return true;
        },
      });
      const args = ['forge', 'fetch', '--api', server.url, '--repo', 'acme/payments', '--issue', '128'];
      const r = await runSf(args, { env: { FORGE_TOKEN: '' } });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /waiting 0 s for the rate limit \(HTTP 429, retry-after 0\)/);
      // with --json, stderr is for the error object alone: the wait is not announced there
      first = true;
      const json = await runSf([...args, '--json'], { env: { FORGE_TOKEN: '' } });
      assert.equal(json.code, 0, json.stderr);
      assert.equal(json.stderr, '');
      assert.equal(JSON.parse(json.stdout).comments.length, 3);
    });
  });
});
