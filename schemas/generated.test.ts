import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GENERATED_MARKER } from '../scripts/gen/files.js';
import { checkGenerated, generateAll, writeAll } from '../scripts/gen/generate.js';
import { repoRoot, tempDir } from '../test-support/index.js';

function runGen(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/gen/index.ts'), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A scratch copy of everything the generator reads and writes. */
async function copySources(dest: string): Promise<void> {
  for (const rel of ['schemas/semconv', 'schemas/semconv-pins.yaml', 'schemas/json', 'schemas/generated', 'docs/semconv.md', 'core/errors/codes.ts', 'docs/errors.md']) {
    await cp(join(repoRoot, rel), join(dest, rel), { recursive: true });
  }
}

describe('generated files (npm run gen)', () => {
  it('are up to date with schemas/ (run `npm run gen` if this fails)', async () => {
    const stale = await checkGenerated(repoRoot);
    assert.deepEqual(stale, [], `stale generated files: ${stale.map((s) => `${s.path} (${s.reason})`).join(', ')}; run npm run gen`);
  });

  it('are deterministic and carry a do-not-edit header naming their source', async () => {
    const a = await generateAll(repoRoot);
    const b = await generateAll(repoRoot);
    assert.deepEqual(a, b);
    assert.ok(a.some((f) => f.path === 'schemas/generated/semconv.ts'));
    assert.ok(a.some((f) => f.path === 'docs/semconv.md'));
    assert.ok(a.some((f) => f.path === 'docs/errors.md'));
    assert.ok(a.some((f) => f.path === 'schemas/generated/observation-envelope.ts'));
    assert.ok(a.some((f) => f.path === 'schemas/generated/skit-frontmatter.validate.ts'));
    assert.ok(a.some((f) => f.path === 'schemas/generated/skill-frontmatter.validate.ts'));
    for (const f of a) {
      const head = f.content.split('\n').slice(0, 2).join('\n');
      assert.ok(head.includes(GENERATED_MARKER) && head.includes('do not edit'), `${f.path} lacks the generated header`);
      assert.match(head, /from (schemas\/|core\/errors\/codes\.ts)/, `${f.path} header does not name its source`);
    }
  });

  describe('in a scratch copy', () => {
    let dir: { path: string; cleanup: () => Promise<void> };
    beforeEach(async () => {
      dir = await tempDir('sf-gen-');
      await copySources(dir.path);
    });
    afterEach(async () => {
      await dir.cleanup();
    });

    it('reports an edited registry and a new JSON Schema as stale, and write mode fixes both', async () => {
      assert.deepEqual(await checkGenerated(dir.path), []);
      const yamlPath = join(dir.path, 'schemas/semconv/registry/agent-runtime.yaml');
      const yaml = await readFile(yamlPath, 'utf8');
      await writeFile(yamlPath, yaml.replace('brief: Host-provided identifier of the agent turn.', 'brief: Host-provided turn identifier.'));
      await writeFile(
        join(dir.path, 'schemas/json/probe.schema.json'),
        JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Probe', type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }),
      );
      const stale = await checkGenerated(dir.path);
      assert.deepEqual(stale.map((s) => `${s.path} ${s.reason}`).sort(), [
        'docs/semconv.md outdated',
        'schemas/generated/probe.ts missing',
        'schemas/generated/semconv.ts outdated',
      ]);

      await writeAll(dir.path);
      assert.deepEqual(await checkGenerated(dir.path), []);
      assert.match(await readFile(join(dir.path, 'schemas/generated/semconv.ts'), 'utf8'), /Host-provided turn identifier\./);
      const probe = await readFile(join(dir.path, 'schemas/generated/probe.ts'), 'utf8');
      assert.match(probe, /export interface Probe \{\s+n: number;/);
      assert.match(probe, /export const probeSchema = \{/);
    });

    it('removes orphaned generated files but never a hand-written file', async () => {
      await writeFile(join(dir.path, 'schemas/generated/old.ts'), `// ${GENERATED_MARKER} from schemas/json/old.schema.json — do not edit.\n`);
      await writeFile(join(dir.path, 'schemas/generated/notes.ts'), '// hand-written\n');
      assert.deepEqual(await checkGenerated(dir.path), [{ path: 'schemas/generated/old.ts', reason: 'orphaned' }]);
      await writeAll(dir.path);
      await assert.rejects(readFile(join(dir.path, 'schemas/generated/old.ts')), /ENOENT/);
      assert.equal(await readFile(join(dir.path, 'schemas/generated/notes.ts'), 'utf8'), '// hand-written\n');
    });

    it('--check lists stale files, exits 1 and writes nothing; without --check it regenerates', async () => {
      const target = join(dir.path, 'schemas/generated/semconv.ts');
      await writeFile(target, 'tampered\n');
      const check = await runGen(['--check', '--root', dir.path]);
      assert.equal(check.code, 1, check.stderr);
      assert.match(check.stderr, /schemas\/generated\/semconv\.ts \(outdated\)/);
      assert.equal(await readFile(target, 'utf8'), 'tampered\n');

      const write = await runGen(['--root', dir.path]);
      assert.equal(write.code, 0, write.stderr);
      assert.match(write.stdout, /wrote schemas\/generated\/semconv\.ts/);
      const again = await runGen(['--check', '--root', dir.path]);
      assert.equal(again.code, 0, again.stderr);
    });

    it('exits 2 naming the file and the problem when the registry is malformed', async () => {
      const pins = join(dir.path, 'schemas/semconv-pins.yaml');
      await writeFile(pins, (await readFile(pins, 'utf8')).replace('schema_url: https://opentelemetry.io/schemas/1.44.0', 'schema_url: https://opentelemetry.io/schemas/1.40.0'));
      const result = await runGen(['--check', '--root', dir.path]);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /semconv-pins\.yaml: schema_url "https:\/\/opentelemetry\.io\/schemas\/1\.40\.0" differs from the manifest dependency/);
    });
  });
});
