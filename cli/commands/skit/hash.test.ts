import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import schema from '../../../schemas/json/hash-listing.schema.json' with { type: 'json' };
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runSf, sfBin, tempDir, writeTree } from '../../../test-support/index.js';

const execFileP = promisify(execFile);
const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const README = `---
skit: 1
id: acme/hash-cli
skills:
  - name: review
    path: skills/review
    trigger_modes: [explicit]
    mutation_scopes: [none]
    capabilities: []
    approval_expectations: []
    expected_outputs: []
    shared:
      - from: shared/style
        to: references/style
  - name: notes
    path: skills/notes
    trigger_modes: [implicit]
    mutation_scopes: [none]
    capabilities: []
    approval_expectations: []
    expected_outputs: []
---

# hash-cli
`;
const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill. Use when testing sf skit hash.\n---\n\n# ${name}\n`;
const TREE = {
  'README.md': README,
  'skills/review/SKILL.md': skillMd('review'),
  'skills/review/checklist.md': '- correct\n- small\n',
  'skills/notes/SKILL.md': skillMd('notes'),
  'skills/notes/r\u00e9sum\u00e9.md': 'non-ASCII name\n',
  'shared/style/guide.md': '# Style\n',
};

interface Listing {
  id: string;
  bundle: string;
  skills: { name: string; id: string; hash: string; files: { path: string; mode: string; sha256: string; size: number; from?: string }[] }[];
  files: { path: string; mode: string; sha256: string; size: number }[];
}

describe('sf skit hash', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let skit: string;
  before(async () => {
    dir = await tempDir('sf-hash-cli-');
    skit = join(dir.path, 'skit');
    await writeTree(skit, TREE);
  });
  after(() => dir.cleanup());

  const hashJson = async (path: string): Promise<Listing> => {
    const r = await runSf(['skit', 'hash', path, '--json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return JSON.parse(r.stdout) as Listing;
  };

  it('--json follows schemas/json/hash-listing.schema.json and lists every file with its real sha256', async () => {
    const listing = await hashJson(skit);
    const validate = new Ajv2020({ allErrors: true }).compile(schema);
    assert.ok(validate(listing), JSON.stringify(validate.errors));
    assert.equal(listing.id, 'acme/hash-cli');
    assert.deepEqual(
      listing.files.map((f) => f.path),
      ['README.md', 'shared/style/guide.md', 'skills/notes/SKILL.md', 'skills/notes/r\u00e9sum\u00e9.md', 'skills/review/SKILL.md', 'skills/review/checklist.md'],
    );
    for (const f of listing.files) assert.equal(f.sha256, sha(readFileSync(join(skit, f.path))), f.path);
    // the bundle hash is the digest of the documented listing
    const lines = listing.files.map((f) => `${f.mode}\t${f.sha256}\t${f.path}\n`).join('');
    assert.equal(listing.bundle, `sha256:${sha(`forge-skit-bundle/1\n${lines}`)}`);
  });

  it('includes shared mappings in the skill projection', async () => {
    const listing = await hashJson(skit);
    const review = listing.skills.find((s) => s.name === 'review')!;
    assert.equal(review.id, 'acme/hash-cli:review');
    assert.deepEqual(
      review.files.map((f) => [f.path, f.from]),
      [
        ['SKILL.md', undefined],
        ['checklist.md', undefined],
        ['references/style/guide.md', 'shared/style/guide.md'],
      ],
    );
    const lines = review.files.map((f) => `${f.mode}\t${f.sha256}\t${f.path}\n`).join('');
    assert.equal(review.hash, `sha256:${sha(`forge-skit-skill/1\n${lines}`)}`);
  });

  it('is independent of where the tree lives; a changed byte changes the bundle and only the affected skills', async () => {
    const before = await hashJson(skit);
    const copy = join(dir.path, 'elsewhere', 'copy');
    cpSync(skit, copy, { recursive: true });
    assert.deepEqual(await hashJson(copy), before);

    writeFileSync(join(copy, 'shared/style/guide.md'), '# Style!\n');
    const after = await hashJson(copy);
    assert.notEqual(after.bundle, before.bundle);
    const byName = (l: Listing) => Object.fromEntries(l.skills.map((s) => [s.name, s.hash]));
    assert.notEqual(byName(after).review, byName(before).review, 'review maps the changed shared file');
    assert.equal(byName(after).notes, byName(before).notes, 'notes does not');
  });

  it('prints the bundle hash, the skill hashes and the file inventory', async () => {
    const listing = await hashJson(skit);
    const r = await runSf(['skit', 'hash', skit]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`bundle\\s+${listing.bundle}`));
    for (const s of listing.skills) assert.match(r.stdout, new RegExp(`${s.id}\\s+${s.hash}\\s+${s.files.length}`));
    for (const f of listing.files) assert.match(r.stdout, new RegExp(`${f.mode}\\s+${f.size}\\s+${f.sha256.slice(0, 12)}\\s+${f.path}\\n`));
  });

  it('refuses an invalid SKIT with its diagnostics and exit code 1', async () => {
    const bad = join(dir.path, 'bad');
    await writeTree(bad, { ...TREE, 'README.md': README.replace('name: notes', 'name: review') });
    const human = await runSf(['skit', 'hash', bad]);
    assert.equal(human.code, 1);
    assert.match(human.stderr, /error/);
    // ends like `sf add skit` on an invalid SKIT: a coded error with a hint (D12)
    assert.match(human.stderr, /error\[SF_E_VALIDATION\]: .*bad is not a valid SKIT; nothing was hashed\n  hint: /);
    assert.equal(human.stdout, '');
    const json = await runSf(['skit', 'hash', bad, '--json']);
    assert.equal(json.code, 1);
    // stdout is only ever the hash listing of its schema; the failure is the {error} object on stderr
    assert.equal(json.stdout, '');
    const { error } = JSON.parse(json.stderr) as { error: { code: string; hint: string; data: { diagnostics: { severity: string }[] } } };
    assert.equal(error.code, 'SF_E_VALIDATION');
    assert.ok(error.hint);
    assert.ok(error.data.diagnostics.some((d) => d.severity === 'error'));
  });

  it('reports a missing directory as not found', async () => {
    const r = await runSf(['skit', 'hash', join(dir.path, 'nope')]);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /SF_E_NOT_FOUND/);
  });

  it('hashes a file stored under an NFD name (as macOS writes it) like its NFC twin', async () => {
    const nfdDir = join(dir.path, 'nfd');
    cpSync(skit, nfdDir, { recursive: true });
    const nfc = 'skills/notes/r\u00e9sum\u00e9.md';
    renameSync(join(nfdDir, nfc), join(nfdDir, nfc.normalize('NFD')));
    assert.equal((await hashJson(nfdDir)).bundle, (await hashJson(skit)).bundle);
  });
  it('writes all of a large --json listing to a pipe whose reader is slow before it exits', async () => {
    // 1,500 files make a listing far larger than a pipe's buffer, so most of it waits in the
    // process for the reader (which starts late) when the command is done
    const big = join(dir.path, 'big');
    const files: Record<string, string> = { ...TREE };
    for (let i = 0; i < 1500; i++) files[`skills/review/references/part-${String(i).padStart(4, '0')}.md`] = `part ${i}\n`;
    await writeTree(big, files);
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const { stdout } = await execFileP('/bin/bash', ['-c', `set -o pipefail; ${q(process.execPath)} ${q(sfBin)} skit hash ${q(big)} --json | (sleep 0.5; cat)`], { maxBuffer: 64 * 1024 * 1024 });
    const body = JSON.parse(stdout) as { files: unknown[] };
    assert.equal(body.files.length, Object.keys(files).length);
  });
});
