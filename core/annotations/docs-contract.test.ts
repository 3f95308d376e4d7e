import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir, repoRoot } from '../../test-support/index.js';
import { runConformanceCheck } from './check.js';
import { parseBody } from './parse-body.js';
import { parseThread, readThreadInput } from './thread.js';

/** docs/forge-annotations.md and docs/cli-json.md describe what the code emits (D8). */

const doc = (name: string) => readFileSync(join(repoRoot, 'docs', name), 'utf8');
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []));

/** The rows of the diagnostics table of docs/forge-annotations.md that name `code`. */
function diagnosticRows(code: string): string[] {
  const table = doc('forge-annotations.md').split('## Diagnostics')[1].split('\n## ')[0];
  return table.split('\n').filter((l) => l.startsWith('|') && l.includes(`\`${code}\``));
}

/** Input that makes the parser emit each diagnostic it has, with each severity it has. */
const SAMPLES = [
  '<!-- FORGE:GATE_FAILED: ignored -->',
  '<!-- FORGE:PRIOR_GIST: not-a-url -->',
  '<!-- FORGE:PRIOR_GIST -->\nx',
  '<!-- FORGE:KNOWLEDGE_GIST: -->',
  '<!-- FORGE:ACME: -->',
  '<!-- FORGE:BUILDER: https://x -->',
  '<!-- FORGE:CONTEXT -->\n## Implementation Context for #1\n\n<!-- FORGE:CONTEXT:PARTIAL -->',
  '<!-- FORGE:BUILDER -->\n## Implementation Complete\n\n**Branch**: b\n**Commits**: zzz\n**Files changed**: 2\n**Files changed**: 3\n**Owner**: x\nstray\n\n### Changes\n- a.ts: x\n\n### Changes\n\n### Notes\nx\n<!--\n\n<!-- FORGE:BUILDER:PARTIAL -->',
  '<!-- FORGE:REVIEWER -->\n## Review — security\n\n**Verdict**: MAYBE\n\n### Findings\nNone\n<!-- INVESTIGATION:COMPLETE -->',
  '<!--FORGE:TRAJECTORY-->\n## Trajectory\n\n| A | B |\n|---|---|\n| x |\n\n**Completed**: 2026-01-01\n<!-- FORGE:TRAJECTORY:COMPLETE -->\ntext\n<!-- FORGE:BUILDER:COMPL',
  '<!-- FORGE:ACME -->\n<!--\nx\n<!-- FORGE:ACME:COMPLETE -->\n<!-- FORGE:ACME:COMPLETE -->',
  'see <!-- FORGE:GATE_FAILED --> here\n```\n<!-- FORGE:GATE_FAILED -->\n```',
];

describe('the docs list what the annotation code emits (D8)', () => {
  it('every diagnostic code in core/annotations has a row in the diagnostics table', () => {
    const codes = new Set(sources(join(repoRoot, 'core', 'annotations')).flatMap((f) => readFileSync(f, 'utf8').match(/'FORGE_[A-Z_]+'/g) ?? []).map((c) => c.slice(1, -1)));
    assert.ok(codes.size > 30, String(codes.size));
    assert.deepEqual([...codes].filter((c) => diagnosticRows(c).length === 0), []);
  });

  it('every severity a diagnostic is emitted with is the one its row states', () => {
    const threads = readdirSync(join(fixturesDir, 'annotations', 'threads')).map((f) => readFileSync(join(fixturesDir, 'annotations', 'threads', f), 'utf8'));
    const spec = readdirSync(join(fixturesDir, 'annotations', 'spec')).filter((f) => f.endsWith('.md')).map((f) => readFileSync(join(fixturesDir, 'annotations', 'spec', f), 'utf8'));
    const found = new Map<string, Set<string>>();
    for (const text of [...SAMPLES, ...spec, ...threads]) {
      const parsed = parseThread(readThreadInput(text).comments);
      for (const d of [...parsed.diagnostics, ...parsed.annotations.flatMap((a) => a.diagnostics)]) found.set(d.code, (found.get(d.code) ?? new Set()).add(d.severity));
    }
    assert.ok(found.get('FORGE_FORM_MISMATCH')?.has('info') && found.get('FORGE_INLINE_NOT_URL'), 'the samples reach the codes of the audit');
    const wrong = [...found].flatMap(([code, severities]) => [...severities].filter((s) => !diagnosticRows(code).some((row) => row.split('|')[2]?.includes(s))).map((s) => `${code} ${s}`));
    assert.deepEqual(wrong, []);
  });

  it('every null in `sf forge check --json` is listed as nullable in docs/cli-json.md', () => {
    const table = doc('cli-json.md').split('## Fields documented as nullable')[1].split('\n## ')[0];
    const documented = new Set<string>();
    for (const row of table.split('\n').filter((l) => l.startsWith('| `sf forge check`'))) {
      const cell = row.split('|')[2];
      let base = '';
      for (const [, name] of cell.matchAll(/`([^`]+)`/g)) {
        // `.completion` is a sibling of the field before it; `chain.entries[]` repeats the fields under chain
        const full = name.startsWith('.') ? base + name : name;
        base = full.replace(/\.[^.]+$/, '');
        documented.add(full);
      }
    }
    const nullsIn = (value: unknown, at: string): string[] =>
      value === null ? [at] : typeof value === 'object' ? Object.entries(value as object).flatMap(([k, v]) => nullsIn(v, at ? `${at}${Array.isArray(value) ? '[]' : `.${k}`}` : k)) : [];
    const reports = [
      runConformanceCheck({ annotations: parseBody('<!-- FORGE:PRIOR_GIST: not-a-url -->').annotations, diagnostics: [] }, { require: ['PRIOR_GIST'] }),
      runConformanceCheck(parseThread(readThreadInput('<!-- FORGE:GATE_FAILED -->').comments), { labels: ['bug'] }),
    ];
    const undocumented = [...new Set(reports.flatMap((r) => nullsIn(r, '')))].filter((p) => !documented.has(p) && !documented.has(p.replace(/^chain\./, '')));
    assert.deepEqual(undocumented, []);
  });
});
