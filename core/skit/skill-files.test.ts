import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isSfError, SfError } from '../errors/index.js';
import { compareUtf8, normalizeHashPath } from './hash-listing.js';
import { skillFileEntries, skillFileSources, type FileDigest, type SkillFile } from './skill-files.js';
import type { SkillEntry, SkitLayout } from './types.js';

/**
 * skillFileEntries looks files up by range in an NFC-sorted index; this reference scans every
 * file of the SKIT for every skill and mapping, in layout order, as the rules read.
 */
function referenceEntries(layout: SkitLayout, skill: SkillEntry, digests: ReadonlyMap<string, FileDigest>): SkillFile[] {
  const out = new Map<string, SkillFile>();
  const fail = (path: string, detail: string) => {
    throw new SfError('SF_E_PATH_COLLISION', `skill "${skill.name}": ${detail}`, { location: { file: skill.path === '' ? path : `${skill.path}/${path}` } });
  };
  const add = (entry: SkillFile, mapping?: number) => {
    const prior = out.get(entry.path);
    if (prior && mapping === undefined) fail(entry.path, `two files have the same normalized path "${entry.path}"`);
    if (prior) fail(entry.path, `shared mapping ${mapping} (from ${entry.from}) would overwrite ${prior.from === undefined ? 'a file of the skill' : `the file mapped from ${prior.from}`} at "${entry.path}"`);
    out.set(entry.path, entry);
  };
  const own = skill.path === '' ? '' : `${normalizeHashPath(skill.path)}/`;
  for (const f of layout.files) {
    const nfc = f.path.normalize('NFC');
    if (nfc.startsWith(own)) add({ path: nfc.slice(own.length), mode: f.mode, ...digests.get(f.path)! });
  }
  skill.shared.forEach((m, i) => {
    const strip = (p: string) => (p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p);
    const from = normalizeHashPath(strip(m.from));
    const to = normalizeHashPath(strip(m.to));
    let matched = 0;
    for (const f of layout.files) {
      const nfc = f.path.normalize('NFC');
      if (nfc !== from && !nfc.startsWith(`${from}/`)) continue;
      matched++;
      add({ path: nfc === from ? to : `${to}/${nfc.slice(from.length + 1)}`, mode: f.mode, ...digests.get(f.path)!, from: nfc }, i);
    }
    if (matched === 0) throw new SfError('SF_E_NOT_FOUND', `shared mapping ${i} of skill "${skill.name}": "${m.from}" matches no file of the SKIT`);
  });
  for (const path of out.keys()) {
    const segs = path.split('/');
    for (let k = 1; k < segs.length; k++) {
      const dir = segs.slice(0, k).join('/');
      if (out.has(dir)) fail(dir, `"${dir}" is a file, but "${path}" needs it to be a directory`);
    }
  }
  return [...out.values()].sort((a, b) => compareUtf8(a.path, b.path));
}

const outcome = (f: () => unknown) => {
  try {
    return { value: f() };
  } catch (e) {
    return isSfError(e) ? { error: `${e.code}: ${e.message}` } : { error: String(e) };
  }
};

describe('skill projections (core/skit/skill-files)', () => {
  it('match a full scan of the SKIT: files, order, keys and the first error', () => {
    // a small alphabet so that prefixes, NFC twins (café / cafe + U+0301) and collisions are common
    const segment = fc.constantFrom('a', 'b', 'A', 'a-b', 'caf\u00e9', 'cafe\u0301', 'x', 'r');
    const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
    const skill = fc.record({
      dir: fc.oneof(fc.constant(''), path),
      shared: fc.array(fc.record({ from: fc.oneof(path, path.map((p) => `${p}/`)), to: path }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 14 }), fc.array(skill, { minLength: 1, maxLength: 3 }), (paths, skills) => {
        const files = [...paths].sort().map((p, i) => ({ path: p, mode: i % 3 === 0 ? ('exec' as const) : ('file' as const), size: i, abs: `/kit/${p}` }));
        const layout: SkitLayout = {
          id: 'acme/kit',
          provisional: false,
          files,
          skills: skills.map((s, i) => ({ name: `s${i}`, path: s.dir, defaultEnabled: true, shared: s.shared })),
        };
        const digests = new Map(files.map((f, i) => [f.path, { sha256: i.toString(16).padStart(64, '0'), size: f.size }]));
        for (const s of layout.skills) {
          const got = outcome(() => skillFileEntries(layout, s, digests));
          assert.deepEqual(got, outcome(() => referenceEntries(layout, s, digests)));
          // JSON output keeps its key order: path, mode, sha256, size[, from]
          if ('value' in got) for (const e of got.value as SkillFile[]) assert.deepEqual(Object.keys(e), e.from === undefined ? ['path', 'mode', 'sha256', 'size'] : ['path', 'mode', 'sha256', 'size', 'from']);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('plans a projection without digests: the same files, each naming its SKIT source and position', () => {
    const files = ['shared/ref/a.md', 'skills/one/SKILL.md', 'skills/one-two/x.md'].map((path) => ({ path, mode: 'file' as const, size: 1, abs: '' }));
    const layout: SkitLayout = { id: 'acme/kit', provisional: false, files, skills: [{ name: 'one', path: 'skills/one', defaultEnabled: true, shared: [{ from: 'shared/ref', to: 'references' }] }] };
    assert.deepEqual(skillFileSources(layout, layout.skills[0]), [
      { path: 'SKILL.md', mode: 'file', source: 'skills/one/SKILL.md', index: 1 },
      { path: 'references/a.md', mode: 'file', source: 'shared/ref/a.md', index: 0, from: 'shared/ref/a.md' },
    ]);
  });
});
