import assert from 'node:assert/strict';
import { codesOf, findDiagnostic, layoutInput, scaffoldTree, validateTree } from '../../test-support/skit-layout.js';
import { validateSkitLayout } from './validate-layout.js';

describe('SKIT validation: file tree and quotas', () => {
  it('rejects hostile file names anywhere in the tree', () => {
    const hostile = [
      '../evil.md',
      'skills/review/../../evil.md',
      '/etc/passwd',
      'C:/windows/x.md',
      '//server/share/x.md',
      'shared/a\\b.md',
      'shared/nul\u0000.md',
      'shared/bell\u0007.md',
      'shared/\u202egnp.md',
      'shared/CON',
      'shared/com1.txt',
      'shared/trailing.',
      'shared//double.md',
    ];
    for (const path of hostile) {
      const r = validateTree({ ...scaffoldTree(), [path]: 'x' });
      assert.deepEqual(codesOf(r), ['SKIT_PATH_UNSAFE'], JSON.stringify(path));
      assert.equal(findDiagnostic(r, 'SKIT_PATH_UNSAFE').file, path);
    }
  });

  it('rejects names that collide after case folding or Unicode normalization', () => {
    const cased = validateTree({ ...scaffoldTree(), 'shared/Notes.md': 'a', 'shared/notes.md': 'b' });
    assert.match(findDiagnostic(cased, 'SKIT_PATH_COLLISION').message, /differ only in letter case/);
    const nfc = validateTree({ ...scaffoldTree(), 'shared/caf\u00e9.md': 'a', 'shared/cafe\u0301.md': 'b' });
    assert.match(findDiagnostic(nfc, 'SKIT_PATH_COLLISION').message, /Unicode normalization/);
    const dir = validateTree({ ...scaffoldTree(), 'shared/References/x.md': 'a' });
    assert.deepEqual(codesOf(dir), ['SKIT_PATH_COLLISION']);
  });

  it('reports a colliding directory once, not once for every file in it', () => {
    const r = validateTree({ ...scaffoldTree(), 'Docs/a.md': 'a', 'docs/b.md': 'b', 'docs/c.md': 'c', 'docs/d.md': 'd' });
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'SKIT_PATH_COLLISION').map((d) => d.message),
      ['"Docs" and "docs" differ only in letter case'],
    );
  });

  it('warns about files that look like secrets, and not about their templates', () => {
    const secrets = ['.env', '.env.local', 'skills/review/.ENV.production', 'id_rsa', 'shared/id_ed25519', 'certs/server.pem', 'tls.key', '.npmrc', '.netrc', '.aws/credentials', 'keys/store.p12'];
    const harmless = ['.env.example', '.env.sample', 'shared/.env.template', 'id_rsa.pub', 'shared/keyboard.md', 'docs/credentials.md', 'environment.md', 'monkey.txt'];
    const r = validateTree({ ...scaffoldTree(), ...Object.fromEntries([...secrets, ...harmless].map((p) => [p, 'x'])) });
    assert.ok(r.ok, 'a warning, not an error');
    assert.deepEqual(r.diagnostics.filter((d) => d.code === 'SKIT_LIKELY_SECRET').map((d) => d.file).sort(), [...secrets].sort());
    assert.equal(findDiagnostic(r, 'SKIT_LIKELY_SECRET').severity, 'warning');
  });

  it('rejects symbolic links and special files reported by the walk', () => {
    const r = validateSkitLayout({
      ...layoutInput(scaffoldTree()),
      oddities: [
        { path: 'shared/link', kind: 'symlink' },
        { path: 'shared/fifo', kind: 'special' },
      ],
    });
    assert.deepEqual(codesOf(r), ['SKIT_TREE_SPECIAL_FILE', 'SKIT_TREE_SYMLINK']);
  });

  it('applies per-file, per-SKIT byte and count quotas', () => {
    const tree = { ...scaffoldTree(), 'shared/big.bin': 'x'.repeat(2000) };
    assert.deepEqual(codesOf(validateTree(tree, { limits: { maxFileBytes: 1000 } })), ['SKIT_QUOTA_FILE_BYTES']);
    assert.deepEqual(codesOf(validateTree(tree, { limits: { maxSkitFiles: 4 } })), ['SKIT_QUOTA_SKIT_FILES']);
    assert.deepEqual(codesOf(validateTree(tree, { limits: { maxSkitBytes: 2500 } })), ['SKIT_QUOTA_SKIT_BYTES']);
    assert.deepEqual(validateTree(tree).diagnostics, []);
  });

  it('refuses what the archive limits would refuse on pack or unpack: a path 65 levels deep', () => {
    const deep = `shared/${Array.from({ length: 63 }, (_, i) => `d${i}`).join('/')}/x.md`;
    const r = validateTree({ ...scaffoldTree(), [deep]: 'deep' });
    assert.deepEqual(codesOf(r), ['SKIT_QUOTA_PATH_DEPTH']);
    assert.equal(r.diagnostics[0].file, deep);
    assert.deepEqual(validateTree({ ...scaffoldTree(), [deep.replace('/d62', '')]: 'deep' }).diagnostics, [], '64 levels are fine');
  });

  it('counts shared mappings into per-skill quotas', () => {
    const tree = { ...scaffoldTree(), 'shared/references/style/big.md': 'x'.repeat(5000) };
    // review receives the shared style directory (2 files); summarize has only its SKILL.md
    const files = validateTree(tree, { limits: { maxSkillFiles: 2 } });
    assert.deepEqual(codesOf(files), ['SKIT_QUOTA_SKILL_FILES']);
    assert.equal(findDiagnostic(files, 'SKIT_QUOTA_SKILL_FILES').file, 'skills/review');
    const bytes = validateTree(tree, { limits: { maxSkillBytes: 4000 } });
    assert.deepEqual(codesOf(bytes), ['SKIT_QUOTA_SKILL_BYTES']);
    assert.match(findDiagnostic(bytes, 'SKIT_QUOTA_SKILL_BYTES').message, /skill "review"/);
  });

  it('sorts diagnostics by file, line, column and code, and every one has a hint and an error code', () => {
    const r = validateTree({ ...scaffoldTree(), 'b/../x': '', 'a/\u0007': '', 'hooks/h.json': '{}' });
    const keys = r.diagnostics.map((d) => `${d.file}`);
    assert.deepEqual(keys, [...keys].sort((a, b) => a.localeCompare(b)));
    assert.ok(r.diagnostics.every((d) => d.hint && d.errorCode));
  });
});
