import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalListing, compareUtf8, digestListing } from '../core/skit/hash-listing.js';
import { skillFileEntries, type FileDigest } from '../core/skit/skill-files.js';
import type { ModeClass, TreeFile } from '../core/skit/tree.js';
import type { SharedMapping, SkitLayout } from '../core/skit/types.js';
import { fixturesDir } from './index.js';

/** Hash test vectors in fixtures/hash-vectors/ (format described in schemas/hashing.md). */

export const vectorsDir = join(fixturesDir, 'hash-vectors');

export interface VectorFile {
  path: string;
  mode: ModeClass;
  utf8?: string;
  base64?: string;
}

export interface VectorSkill {
  name: string;
  path: string;
  shared: SharedMapping[];
}

export interface ExpectedFile {
  path: string;
  mode: ModeClass;
  sha256: string;
  size: number;
}

export interface VectorExpectation {
  files: ExpectedFile[];
  bundle: { listing: string; hash: string };
  skills: { name: string; listing: string; hash: string }[];
}

export interface HashVector {
  description: string;
  id: string;
  files: VectorFile[];
  skills: VectorSkill[];
  expected?: VectorExpectation;
}

export interface ErrorCase {
  description: string;
  error: string;
  files: VectorFile[];
  skills: VectorSkill[];
}

/** Every vector file except errors.json, by file name. */
export function loadVectors(): [string, HashVector][] {
  return readdirSync(vectorsDir)
    .filter((f) => f.endsWith('.json') && f !== 'errors.json')
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(vectorsDir, f), 'utf8')) as HashVector]);
}

export function loadErrorCases(): ErrorCase[] {
  return (JSON.parse(readFileSync(join(vectorsDir, 'errors.json'), 'utf8')) as { cases: ErrorCase[] }).cases;
}

export function vectorBytes(f: VectorFile): Buffer {
  return f.base64 !== undefined ? Buffer.from(f.base64, 'base64') : Buffer.from(f.utf8 ?? '', 'utf8');
}

/** The layout a validator would produce for the vector (files carry no real `abs`). */
export function vectorLayout(v: { id?: string; files: VectorFile[]; skills: VectorSkill[] }, root = '/nonexistent'): SkitLayout {
  const id = v.id ?? 'vectors/case';
  const files: TreeFile[] = v.files.map((f) => ({ path: f.path, mode: f.mode, size: vectorBytes(f).length, abs: join(root, f.path) }));
  return {
    id,
    provisional: id.startsWith('provisional/'),
    skills: v.skills.map((s) => ({ name: s.name, path: s.path, defaultEnabled: true, shared: s.shared })),
    files: files.sort((a, b) => compareUtf8(a.path, b.path)),
  };
}

/** Computes a vector's expectation with the pure core functions (no filesystem). */
export function computeExpectation(v: { id?: string; files: VectorFile[]; skills: VectorSkill[] }): VectorExpectation {
  const layout = vectorLayout(v);
  const digests = new Map<string, FileDigest>(
    v.files.map((f) => {
      const bytes = vectorBytes(f);
      return [f.path, { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length }];
    }),
  );
  const files = v.files
    .map((f) => ({ path: f.path.normalize('NFC'), mode: f.mode, ...digests.get(f.path)! }))
    .sort((a, b) => compareUtf8(a.path, b.path));
  return {
    files,
    bundle: { listing: canonicalListing(files), hash: digestListing('bundle', files) },
    skills: layout.skills.map((skill) => {
      const entries = skillFileEntries(layout, skill, digests);
      return { name: skill.name, listing: canonicalListing(entries), hash: digestListing('skill', entries) };
    }),
  };
}
