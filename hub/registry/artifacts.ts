import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { packTree } from '../../core/archive/index.js';
import { normalizeHashPath } from '../../core/skit/hash-listing.js';
import type { SkillHash } from '../../core/skit/hash.js';
import type { InspectedUpload } from './inspect-upload.js';

/** Bytes to store for one release: the release archive, one archive per skill, and every file. */
export interface ReleaseArtifacts {
  archive: Buffer;
  /** skill name -> deterministic per-skill .tgz (SKILL.md at its root, shared mappings materialized) */
  skillArchives: Map<string, Buffer>;
  /** every file of the SKIT by content hash, for the file and SKILL.md routes */
  fileBlobs: Map<string, Buffer>;
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Copies the projection of `skill` (own files plus shared mappings, exactly the files its content
 * hash covers) into `dest` and packs it. Regular files only, so the archive holds no links.
 */
async function packSkill(upload: InspectedUpload, skill: SkillHash, dest: string, onDisk: Map<string, string>): Promise<Buffer> {
  const skillDir = skill.path === '' ? '' : normalizeHashPath(skill.path);
  for (const f of skill.files) {
    const source = f.from ?? (skillDir === '' ? f.path : `${skillDir}/${f.path}`);
    const actual = onDisk.get(source) ?? source;
    const target = join(dest, ...f.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(upload.root, ...actual.split('/')), target);
  }
  return packTree(dest, skill.files.map((f) => ({ path: f.path, mode: f.mode })));
}

/**
 * Builds the artifacts of an inspected upload inside `workDir`: the deterministic release archive
 * of every SKIT file (the same bytes `sf skit publish` packs for the same tree), and one
 * deterministic archive per contained skill for generic Agent Skills clients.
 */
export async function buildArtifacts(upload: InspectedUpload, workDir: string): Promise<ReleaseArtifacts> {
  const archive = await packTree(upload.root, upload.layout.files);
  // hash paths are NFC; the unpacked names are whatever the archive held
  const onDisk = new Map(upload.layout.files.map((f) => [normalizeHashPath(f.path), f.path]));
  const skillArchives = new Map<string, Buffer>();
  for (const skill of upload.hashes.skills) {
    skillArchives.set(skill.name, await packSkill(upload, skill, join(workDir, 'skills', skill.name), onDisk));
  }
  const fileBlobs = new Map<string, Buffer>();
  for (const f of upload.layout.files) {
    const bytes = await readFile(join(upload.root, ...f.path.split('/')));
    fileBlobs.set(sha256Hex(bytes), bytes);
  }
  return { archive, skillArchives, fileBlobs };
}
