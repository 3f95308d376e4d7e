import { readFile, rename, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { unpackArchive } from '../../core/archive/index.js';
import { SfError, hasErrno, type Diagnostic } from '../../core/errors/index.js';
import { parseFrontmatter } from '../../core/skit/frontmatter.js';
import { hashSkit, type SkitHashes } from '../../core/skit/hash.js';
import type { SkitLayout } from '../../core/skit/types.js';
import { validateSkitDir } from '../../core/skit/validate.js';
import { validationReport } from '../../core/skit/validation-report.js';
import { skitLimitsOf, uploadArchiveLimits, type RegistryLimits } from '../limits.js';

/** An uploaded SKIT, unpacked, validated and hashed by the hub itself. */
export interface InspectedUpload {
  /** the unpacked SKIT root (inside the caller's work dir) */
  root: string;
  /** the layout with the registry id (`owner/name`) */
  layout: SkitLayout;
  /** hashes recomputed from the uploaded bytes; client values are never used */
  hashes: SkitHashes;
  /** warnings and notes of validation (errors would have been thrown) */
  diagnostics: Diagnostic[];
  /** skill name -> SKILL.md `description` */
  descriptions: Map<string, string>;
}

const SKILL_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

function frontmatterOf(text: string): Record<string, unknown> {
  const data = parseFrontmatter(text).frontmatter?.data;
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/**
 * A single-skill upload has no directory name of its own (the archive may have none, or a
 * wrapper that was stripped), and validation checks that a skill's name equals its directory:
 * name the directory after the SKILL.md `name` so that rule judges the skill, not our temp path.
 */
async function rootFor(unpacked: string, workDir: string): Promise<string> {
  const text = await readSkillMd(unpacked, '');
  // no root SKILL.md: a SKIT with a README descriptor, or nothing validation will accept
  if (text === undefined) return unpacked;
  const name = frontmatterOf(text).name;
  if (typeof name !== 'string' || !SKILL_NAME.test(name)) return unpacked;
  const named = join(workDir, 'named', name);
  await mkdir(join(workDir, 'named'));
  await rename(unpacked, named);
  return named;
}

/** The SKILL.md (or skill.md) text of the skill at `skillPath`, undefined when there is none. */
async function readSkillMd(root: string, skillPath: string): Promise<string | undefined> {
  for (const file of ['SKILL.md', 'skill.md']) {
    try {
      return await readFile(join(root, ...skillPath.split('/').filter(Boolean), file), 'utf8');
    } catch (e) {
      if (!hasErrno(e, 'ENOENT')) throw e;
    }
  }
  return undefined;
}

function validationError(skitId: string, diagnostics: Diagnostic[], report: unknown): SfError {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  return new SfError('SF_E_VALIDATION', `the upload for ${skitId} is not a valid SKIT: ${errors.length} error${errors.length === 1 ? '' : 's'}${first ? `, first: ${first.message}` : ''}`, {
    location: first?.file ? { file: first.file, line: first.line, column: first.column } : undefined,
    hint: 'run `sf skit validate` on the SKIT, fix every error, and publish again',
    data: { diagnostics, report },
  });
}

/**
 * Unpacks `body` (tar, tar.gz or zip; a single wrapper directory is stripped) into `workDir`
 * with every archive safety check, validates it with the registry quotas, checks that its id
 * is `skitId` (a single-skill upload takes `skitId`), and hashes it.
 *
 * Throws the archive codes for unsafe or malformed archives, SF_E_VALIDATION (422) with the
 * validation diagnostics in `data` for invalid SKITs or a mismatched id.
 */
export async function inspectUpload(body: Buffer, workDir: string, skitId: string, limits: RegistryLimits): Promise<InspectedUpload> {
  const unpacked = join(workDir, 'upload');
  await unpackArchive(body, unpacked, { strip: 'auto', limits: uploadArchiveLimits(limits) });
  const root = await rootFor(unpacked, workDir);
  const result = await validateSkitDir(root, { limits: skitLimitsOf(limits), provisionalId: skitId });
  const report = validationReport(result);
  if (!result.ok || !result.layout) throw validationError(skitId, result.diagnostics, report);
  const single = result.layout.skills.length === 1 && result.layout.skills[0].path === '';
  if (!single && result.layout.id !== skitId) {
    const mismatch: Diagnostic = {
      code: 'HUB_SKIT_ID_MISMATCH',
      severity: 'error',
      message: `README.md declares id "${result.layout.id}", but this upload is for ${skitId}`,
      file: 'README.md',
      hint: `set \`id: ${skitId}\` in README.md, or publish to ${result.layout.id}`,
    };
    const diagnostics = [mismatch, ...result.diagnostics];
    throw validationError(skitId, diagnostics, { ...report, ok: false, diagnostics });
  }
  const layout: SkitLayout = { ...result.layout, id: skitId, provisional: false };
  const hashes = await hashSkit(root, layout);
  const descriptions = new Map<string, string>();
  for (const skill of layout.skills) {
    const description = frontmatterOf((await readSkillMd(root, skill.path)) ?? '').description;
    descriptions.set(skill.name, typeof description === 'string' ? description : '');
  }
  const diagnostics = result.diagnostics.filter((d) => d.severity !== 'error' && d.code !== 'SKIT_ID_PROVISIONAL');
  return { root, layout, hashes, diagnostics, descriptions };
}
