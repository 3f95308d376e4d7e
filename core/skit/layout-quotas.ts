import type { Diagnostic } from '../errors/diagnostic.js';
import type { FileIndex, LayoutFile } from './file-index.js';
import type { SkitLimits } from './limits.js';
import { diagnostic } from './rules.js';

/** A contained skill as quotas see it: its directory ('' = the whole SKIT) and its mapped files. */
export interface QuotaSkill {
  name: string;
  path: string;
  mapped: readonly LayoutFile[];
}

const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 3 : 1)} MiB`;

/** Per-file and per-SKIT byte and file-count quotas. Pure. */
export function checkTreeQuotas(index: FileIndex, limits: SkitLimits): Diagnostic[] {
  const out: Diagnostic[] = [];
  let total = 0;
  let deepest: LayoutFile | undefined;
  let deepestLevels = 0;
  for (const f of index.files) {
    total += f.size;
    const levels = f.path.split('/').length;
    if (levels > deepestLevels) [deepest, deepestLevels] = [f, levels];
    if (f.size > limits.maxFileBytes) {
      out.push(diagnostic('SKIT_QUOTA_FILE_BYTES', `file is ${mib(f.size)}; the limit per file is ${mib(limits.maxFileBytes)}`, { file: f.path }));
    }
  }
  if (index.files.length > limits.maxSkitFiles) {
    out.push(diagnostic('SKIT_QUOTA_SKIT_FILES', `the SKIT has ${index.files.length} files; the limit is ${limits.maxSkitFiles}`));
  }
  if (deepest && deepestLevels > limits.maxPathDepth) {
    out.push(diagnostic('SKIT_QUOTA_PATH_DEPTH', `the path is ${deepestLevels} levels deep; the limit is ${limits.maxPathDepth}`, { file: deepest.path }));
  }
  if (total > limits.maxSkitBytes) {
    out.push(diagnostic('SKIT_QUOTA_SKIT_BYTES', `the SKIT holds ${mib(total)}; the limit is ${mib(limits.maxSkitBytes)}`));
  }
  return out;
}

/** Per-skill quotas: own files plus the files its shared mappings bring in. Pure. */
export function checkSkillQuotas(index: FileIndex, skills: readonly QuotaSkill[], limits: SkitLimits): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const s of skills) {
    const files = [...(s.path === '' ? index.files : index.under(s.path)), ...s.mapped];
    const bytes = files.reduce((n, f) => n + f.size, 0);
    const where = { file: s.path === '' ? undefined : s.path };
    if (files.length > limits.maxSkillFiles) {
      out.push(diagnostic('SKIT_QUOTA_SKILL_FILES', `skill "${s.name}" has ${files.length} files with its shared mappings; the limit is ${limits.maxSkillFiles}`, where));
    }
    if (bytes > limits.maxSkillBytes) {
      out.push(diagnostic('SKIT_QUOTA_SKILL_BYTES', `skill "${s.name}" holds ${mib(bytes)} with its shared mappings; the limit is ${mib(limits.maxSkillBytes)}`, where));
    }
  }
  return out;
}
