import { hasErrors, sortDiagnostics, type Diagnostic } from '../errors/diagnostic.js';
import { checkCapabilities, detectCapabilities } from './capabilities.js';
import { readDescriptor, type Descriptor } from './descriptor.js';
import { findDescriptor, type DescriptorSource } from './descriptor-source.js';
import { FileIndex, type LayoutFile } from './file-index.js';
import { checkSkillQuotas, checkTreeQuotas } from './layout-quotas.js';
import { checkShared } from './layout-shared.js';
import { checkSkills } from './layout-skills.js';
import { checkTree } from './layout-tree.js';
import { resolveLimits, type SkitLimits } from './limits.js';
import { isProvisionalId, localFingerprint, provisionalSkitId } from './provisional-id.js';
import { diagnostic, type RuleCode } from './rules.js';
import { checkSchema, skitSchema } from './schemas.js';
import { checkSkillLinks } from './skill-links.js';
import { validateSkillMd } from './skill-md.js';
import type { TreeFile, TreeOddity } from './tree.js';
import type { SkitLayout } from './types.js';

/**
 * SKIT validation as a pure function over a file listing and the contents it needs (see
 * `contentNeed` in capabilities.ts): no disk, so every rule is testable with data. validate.ts
 * feeds it from a directory.
 */

export interface SkitLayoutInput {
  /** every regular file of the SKIT (any order) */
  files: readonly LayoutFile[];
  /** symlinks and special files found in the tree */
  oddities?: readonly TreeOddity[];
  /**
   * file contents by path: full text where `contentNeed` says 'full', at least the first bytes
   * otherwise (a Map, or a source that fetches on demand)
   */
  contents: ContentSource;
  /** name of the SKIT's root directory; a single-skill SKIT's name must equal it */
  rootName?: string;
  /** an already-parsed SKIT descriptor to use instead of README.md */
  descriptor?: unknown;
  limits?: Partial<SkitLimits>;
  /** the id to give a SKIT that has no id of its own: `provisional/<fingerprint>`, or the owner/name a registry assigned to a single-skill release */
  provisionalId?: string;
}

export interface ValidationResult {
  /** true when no diagnostic is an error */
  ok: boolean;
  /** sorted by file, line, column, code */
  diagnostics: Diagnostic[];
  /** present whenever the id and skills could be read, even when `ok` is false: check `ok` first */
  layout?: SkitLayout;
  /** the descriptor in effect (README.md frontmatter or the supplied one); a single-skill SKIT's SKILL.md frontmatter */
  frontmatter?: unknown;
}

const SCHEMA_CODES: Record<string, RuleCode> = {
  required: 'SKIT_FRONTMATTER_MISSING_KEY',
  additionalProperties: 'SKIT_FRONTMATTER_UNKNOWN_KEY',
  type: 'SKIT_FRONTMATTER_TYPE',
};

interface Context {
  input: SkitLayoutInput;
  index: FileIndex;
  read: (path: string) => Uint8Array | string | undefined;
  readText: (path: string) => string | undefined;
  limits: SkitLimits;
  out: Diagnostic[];
}

type Outcome = Pick<ValidationResult, 'layout' | 'frontmatter'>;

/** File contents by SKIT-relative path (undefined: not read, or not there). */
export interface ContentSource {
  get(path: string): Uint8Array | string | undefined;
}

/** Validates a SKIT given as data. */
export function validateSkitLayout(input: SkitLayoutInput): ValidationResult {
  const index = new FileIndex(input.files);
  const read = (p: string) => input.contents.get(p);
  const readText = (p: string) => {
    const c = read(p);
    return c === undefined ? undefined : typeof c === 'string' ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
  };
  const ctx: Context = { input, index, read, readText, limits: resolveLimits(input.limits), out: checkTree(index.files, input.oddities ?? []) };
  ctx.out.push(...checkTreeQuotas(index, ctx.limits));
  const rootSkillFile = index.has('SKILL.md') ? 'SKILL.md' : index.has('skill.md') ? 'skill.md' : undefined;
  const source = findDescriptor({ descriptor: input.descriptor, readme: index.has('README.md') ? readText('README.md') : undefined, rootSkillFile });
  ctx.out.push(...source.diagnostics);
  const outcome: Outcome =
    source.kind === 'descriptor' ? validateDescribed(ctx, source) : source.kind === 'single' ? validateSingle(ctx, rootSkillFile!) : {};
  const diagnostics = sortDiagnostics(ctx.out);
  return { ok: !hasErrors(diagnostics), diagnostics, ...outcome };
}

function validateDescribed(ctx: Context, source: Extract<DescriptorSource, { kind: 'descriptor' }>): Outcome {
  const { index, out, input } = ctx;
  let data = source.data;
  if (!source.fromReadme && input.provisionalId && isRecord(data) && data.id === undefined) data = { ...data, id: input.provisionalId };
  for (const f of checkSchema(skitSchema, data)) {
    out.push(diagnostic(SCHEMA_CODES[f.keyword] ?? 'SKIT_FRONTMATTER_VALUE', f.message, source.locate(f.pointer)));
  }
  const d = inTreeSpelling(readDescriptor(data), index);
  if (source.fromReadme && d.id !== undefined && isProvisionalId(d.id)) {
    out.push(diagnostic('SKIT_ID_RESERVED', `id "${d.id}" uses the reserved owner "provisional"`, source.locate('/id')));
  }
  // a synthesized descriptor for third-party Agent Skills has nobody to declare anything: its
  // findings are disclosed as warnings, like a single-skill SKIT's
  const synthesized = !source.fromReadme && d.id !== undefined && isProvisionalId(d.id);
  const skills = checkSkills(d.skills, index, ctx.readText, source.locate);
  const shared = checkShared(skills.accepted, index, source.locate);
  const detected = detectCapabilities(index.files, ctx.read, skills.accepted.map((s) => s.path), skills.frontmatterHookFiles);
  out.push(
    ...(synthesized ? disclose(skills.diagnostics.filter((x) => x.code !== 'SKIT_SKILL_DECLARATIONS_INCOMPLETE')) : skills.diagnostics),
    ...shared.diagnostics,
    ...checkCapabilities(detected, d.capabilities, index, source.locate, synthesized ? 'warning' : 'error'),
    ...checkSkillQuotas(index, skills.accepted.map((s) => ({ name: s.name, path: s.path, mapped: shared.mapped.get(s.name) ?? [] })), ctx.limits),
  );
  if (d.id === undefined) return { frontmatter: data };
  const layout: SkitLayout = {
    id: d.id,
    provisional: isProvisionalId(d.id),
    skills: skills.accepted.map((s) => ({
      name: s.name,
      path: s.path,
      defaultEnabled: s.defaultEnabled,
      shared: s.shared.map(({ from, to }) => ({ from, to })),
    })),
    files: treeFiles(index),
  };
  return { layout, frontmatter: data };
}

/** The descriptor's paths as the tree spells them (NFC and NFD name the same file; see FileIndex.spelling). */
function inTreeSpelling(d: Descriptor, index: FileIndex): Descriptor {
  return {
    ...d,
    skills: d.skills.map((s) => ({ ...s, path: index.spelling(s.path), shared: s.shared.map((m) => ({ ...m, from: index.spelling(m.from) })) })),
  };
}

function validateSingle(ctx: Context, file: string): Outcome {
  const { index, out, input } = ctx;
  const text = ctx.readText(file) ?? '';
  const md = validateSkillMd(text, { file, dirName: input.rootName });
  if (file === 'skill.md') out.push(diagnostic('SKILL_MD_LOWERCASE', 'the instructions file is named skill.md', { file }));
  out.push(...md.diagnostics);
  if (md.parsed) out.push(...disclose(checkSkillLinks(md.parsed.body, md.parsed.bodyLine, '', file, new Set())));
  const name = md.name ?? input.rootName ?? 'skill';
  const hookFiles = md.frontmatter && 'hooks' in md.frontmatter ? [file] : [];
  const detected = detectCapabilities(index.files, ctx.read, [], hookFiles);
  out.push(
    ...checkCapabilities(detected, { executables: [], hooks: [], mcp: [] }, index, () => ({}), 'warning'),
    ...checkSkillQuotas(index, [{ name, path: '', mapped: [] }], ctx.limits),
  );
  const id = input.provisionalId ?? provisionalSkitId(localFingerprint(name, ctx.read(file) ?? ''));
  // a registry may assign a real owner/name to a single-skill release; only a provisional/ id is provisional
  const provisional = isProvisionalId(id);
  if (provisional) out.push(diagnostic('SKIT_ID_PROVISIONAL', `single-skill SKIT "${name}" without a README.md descriptor; provisional id ${id}`));
  const layout: SkitLayout = { id, provisional, skills: [{ name, path: '', defaultEnabled: true, shared: [] }], files: treeFiles(index) };
  return { layout, frontmatter: md.frontmatter };
}

/**
 * Broken links out of a third-party skill cannot be fixed by whoever installs it: for provisional
 * SKITs they are disclosed as warnings instead of blocking.
 */
function disclose(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.map((d) => (d.code === 'SKIT_SKILL_TRAVERSAL' && d.severity === 'error' ? { ...d, severity: 'warning' } : d));
}

/**
 * The layout's files. A walked file is passed on as it is (the same object): early hashing
 * (tree-digests.ts) then finds its digest by identity instead of by path.
 */
const treeFiles = (index: FileIndex): TreeFile[] => index.files.map((f) => (f.abs !== undefined ? (f as TreeFile) : { path: f.path, mode: f.mode, size: f.size, abs: '' }));
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
