import { SfError, type Diagnostic } from '../errors/index.js';
import { discoverLayout, DISCOVERY_LOCATIONS, type DiscoveredSkill } from './discover.js';
import type { ResolvedSource, SynthesizedDescriptor } from './types.js';

/** A resolved source before its tree has been looked at. */
export type SourceBase = Omit<ResolvedSource, 'dir' | 'descriptor' | 'diagnostics'>;

export const LAYOUT_HINT =
  'a source must hold a README.md with SKIT frontmatter, a SKILL.md at its root, or skills in ' +
  ['skills/<name>', 'skills/<category>/<name>', ...DISCOVERY_LOCATIONS.slice(1).map((l) => `${l}/<name>`)].join(', ');

/** The SKIT frontmatter object for discovered Agent Skills. */
export function synthesizeDescriptor(provisionalId: string, skills: readonly DiscoveredSkill[]): SynthesizedDescriptor {
  return {
    skit: 1,
    id: provisionalId,
    skills: skills.map((s) => ({ name: s.name, path: s.path, default_enabled: true as const })),
  };
}

/**
 * Completes a resolved source from its materialized tree at `dir`: a SKIT README leaves it as is, a
 * SKILL.md at the root is marked `rootSkill`; other Agent Skills get a synthesized descriptor; nothing recognizable is SF_E_NOT_FOUND; discovery
 * errors (duplicate or nameless skills) are SF_E_VALIDATION carrying the diagnostics in `data`.
 * `shown` is the credential-free source text used in messages.
 */
export function describeTree(dir: string, base: SourceBase, shown: string): ResolvedSource {
  const layout = discoverLayout(dir);
  if (layout.kind === 'skit') return { ...base, dir };
  if (layout.kind === 'empty') {
    throw new SfError('SF_E_NOT_FOUND', `no SKIT or Agent Skill found in ${shown}`, {
      hint: LAYOUT_HINT,
      data: { source: base.canonical },
    });
  }
  const errors = layout.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw discoveryError(shown, errors, base.canonical);
  // a SKILL.md at the root is a single-skill SKIT the validator reads as it is; a descriptor would
  // need a skill path of "" (which no SKIT descriptor may have)
  const root = layout.skills.length === 1 && layout.skills[0].path === '';
  const resolved: ResolvedSource = root ? { ...base, dir, rootSkill: true } : { ...base, dir, descriptor: synthesizeDescriptor(base.provisionalId, layout.skills) };
  if (layout.diagnostics.length > 0) resolved.diagnostics = layout.diagnostics;
  return resolved;
}

function discoveryError(shown: string, errors: Diagnostic[], canonical: string): SfError {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem(s))` : '';
  return new SfError('SF_E_VALIDATION', `${shown}: ${first.message}${more}`, {
    location: { file: first.file },
    hint: first.hint,
    data: { source: canonical, diagnostics: errors },
  });
}
