import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSfError } from '../../errors/index.js';
import { fixturesDir } from '../../../test-support/index.js';
import { parseBody } from '../parse-body.js';
import { renderAnnotation } from '../render.js';
import { buildSkitEvidence } from './build.js';
import type { SkillObservation, SkitInstallation } from './types.js';

const input = JSON.parse(readFileSync(join(fixturesDir, 'annotations', 'evidence', 'evidence.json'), 'utf8')) as {
  installations: SkitInstallation[];
  observations: SkillObservation[];
  scope: string;
  host: string;
  recorded: string;
};
const h = (c: string) => `sha256:${c.repeat(64)}`;

describe('buildSkitEvidence', () => {
  const fields = buildSkitEvidence(input.installations, input.observations, { recorded: input.recorded, scope: input.scope, host: input.host });

  it('de-duplicates releases and skills installed for several hosts, enabled if enabled anywhere', () => {
    assert.deepEqual(fields.releases, [
      { skit: 'acme/docs-kit', version: '0.3.1', bundleHash: h('d') },
      { skit: 'acme/review-kit', version: '1.2.0', bundleHash: h('a') },
    ]);
    assert.deepEqual(fields.skills.map((s) => [s.skill, s.enabled]), [
      ['acme/docs-kit:changelog', 'yes'],
      ['acme/review-kit:lint', 'yes'],
      ['acme/review-kit:perf', 'yes'],
    ]);
  });

  it('groups observations per skill, hash, fidelity and source, and says how each matches the install', () => {
    assert.deepEqual(fields.active, [
      { skill: 'acme/docs-kit:changelog', fidelity: 'unknown', activations: 1, installMatch: 'unknown' },
      { skill: 'acme/review-kit:lint', contentHash: h('b'), fidelity: 'exact', source: 'native_otel', activations: 3, installMatch: 'yes' },
      { skill: 'acme/review-kit:lint', contentHash: h('f'), fidelity: 'derived', source: 'filesystem', activations: 1, installMatch: 'hash-differs' },
      { skill: 'other/kit:x', fidelity: 'inferred', source: 'transcript', activations: 1, installMatch: 'not-installed' },
    ]);
  });

  it('distinguishes "not recorded" (no observations) from "none active"', () => {
    const notRecorded = buildSkitEvidence(input.installations, undefined, { recorded: input.recorded });
    assert.equal(notRecorded.active, null);
    assert.ok(renderAnnotation('SKIT_EVIDENCE', notRecorded).includes('### Active Skills\nNot recorded\n'));
    const none = buildSkitEvidence(input.installations, [], { recorded: input.recorded });
    assert.ok(renderAnnotation('SKIT_EVIDENCE', none).includes('### Active Skills\nNone\n'));
    assert.equal(parseBody(renderAnnotation('SKIT_EVIDENCE', notRecorded)).annotations[0].fields?.active, null);
    assert.deepEqual(parseBody(renderAnnotation('SKIT_EVIDENCE', none)).annotations[0].fields?.active, []);
  });

  it('renders the extension with its sentinel and parses back to the same fields, without findings', () => {
    const text = renderAnnotation('SKIT_EVIDENCE', fields);
    assert.ok(text.startsWith('<!-- FORGE:SKIT_EVIDENCE -->\n## SKIT Evidence\n\n**Scope**: issue #140\n**Host**: claude-code\n**Recorded**: 2026-02-03T17:06:00Z'));
    assert.ok(text.endsWith('\n\n<!-- FORGE:SKIT_EVIDENCE:COMPLETE -->'));
    assert.ok(text.includes(`| acme/review-kit:lint | ${h('f')} | derived | filesystem | 1 | hash-differs |`));
    assert.ok(text.includes('| acme/docs-kit:changelog | - | unknown | - | 1 | unknown |'));
    const a = parseBody(text).annotations[0];
    assert.deepEqual([a.kind, a.status], ['extension', 'complete']);
    assert.deepEqual(a.fields, fields);
    assert.deepEqual(a.diagnostics, []);
  });

  it('is pure: the same input gives the same output', () => {
    assert.deepEqual(buildSkitEvidence(input.installations, input.observations, { recorded: input.recorded, scope: input.scope, host: input.host }), fields);
  });

  it('refuses bad identities, hashes and enums, naming the offending entry', () => {
    const bad = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e) => isSfError(e, 'SF_E_ANNOTATION') && re.test(e.message) && e.location?.pointer !== undefined);
    bad(() => buildSkitEvidence([{ ...input.installations[0], bundleHash: 'md5:1' }]), /installations\[0\]\.bundleHash/);
    bad(() => buildSkitEvidence([{ ...input.installations[0], skills: [{ id: 'other/kit:x', contentHash: h('b'), enabled: true }] }]), /is not acme\/review-kit:<skill>/);
    bad(() => buildSkitEvidence(input.installations, [{ skillId: 'acme/review-kit:lint', fidelity: 'certain' as never }]), /observations\[0\]\.fidelity "certain"/);
    bad(() => buildSkitEvidence([input.installations[0], { ...input.installations[0], bundleHash: h('9') }]), /different bundle hashes/);
  });

  it('parse flags evidence rows that disagree with the installed skills', () => {
    const text = renderAnnotation('SKIT_EVIDENCE', fields).replace(`| ${h('f')} | derived | filesystem | 1 | hash-differs |`, `| ${h('f')} | derived | filesystem | 1 | yes |`);
    const a = parseBody(text).annotations[0];
    assert.deepEqual(a.diagnostics.map((d) => d.code), ['FORGE_EVIDENCE_MATCH']);
  });
});
