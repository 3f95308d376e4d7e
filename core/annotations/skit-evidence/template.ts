import { EVIDENCE_FIDELITIES, EVIDENCE_SOURCES, INSTALL_MATCHES, YES_NO } from '../enums.js';
import { tableCodec } from '../template/codecs-table.js';
import type { CheckReport, TemplateSpec } from '../template/spec.js';
import { expectedInstallMatch, HASH, SKILL_ID, SKIT_ID } from './identity.js';

/**
 * The `FORGE:SKIT_EVIDENCE` template (docs/forge-annotations.md, "Extension"). Completion
 * sentinel `<!-- FORGE:SKIT_EVIDENCE:COMPLETE -->`, partial `<!-- FORGE:SKIT_EVIDENCE:PARTIAL -->`.
 */
export const skitEvidenceTemplate: TemplateSpec = {
  type: 'SKIT_EVIDENCE',
  title: { text: 'SKIT Evidence' },
  preamble: [
    {
      kind: 'fields',
      fields: [
        { key: 'scope', label: 'Scope', kind: 'text' },
        { key: 'host', label: 'Host', kind: 'text' },
        { key: 'recorded', label: 'Recorded', kind: 'iso' },
      ],
    },
  ],
  sections: [
    {
      key: 'releases',
      heading: 'Installed Releases',
      codec: tableCodec({
        emptyText: 'None',
        columns: [
          { key: 'skit', header: 'SKIT' },
          { key: 'version', header: 'Version' },
          { key: 'bundleHash', header: 'Bundle Hash' },
        ],
      }),
    },
    {
      key: 'skills',
      heading: 'Contained Skills',
      codec: tableCodec({
        emptyText: 'None',
        columns: [
          { key: 'skill', header: 'Skill' },
          { key: 'version', header: 'Version' },
          { key: 'contentHash', header: 'Content Hash' },
          { key: 'enabled', header: 'Enabled', enum: YES_NO },
        ],
      }),
    },
    {
      key: 'active',
      heading: 'Active Skills',
      codec: tableCodec({
        emptyText: 'None',
        nullText: 'Not recorded',
        columns: [
          { key: 'skill', header: 'Skill' },
          { key: 'contentHash', header: 'Content Hash', optional: true },
          { key: 'fidelity', header: 'Fidelity', enum: EVIDENCE_FIDELITIES },
          { key: 'source', header: 'Source', enum: EVIDENCE_SOURCES, optional: true },
          { key: 'activations', header: 'Activations', kind: 'int', optional: true },
          { key: 'installMatch', header: 'Install Match', enum: INSTALL_MATCHES },
        ],
      }),
    },
  ],
  required: ['recorded', 'releases', 'skills', 'active'],
  check: checkEvidence,
};

type Row = Record<string, unknown>;
const rows = (v: unknown): Row[] => (Array.isArray(v) ? v.filter((r): r is Row => typeof r === 'object' && r !== null) : []);

/** Identity and hash formats, skills that belong to listed releases, install matches that agree with the skills table. */
function checkEvidence(fields: Record<string, unknown>, report: CheckReport): void {
  const releases = rows(fields.releases);
  const skills = rows(fields.skills);
  for (const r of releases) {
    if (typeof r.skit === 'string' && !SKIT_ID.test(r.skit)) report('error', 'FORGE_VALUE_INVALID', `SKIT id "${r.skit}" is not owner/name`, 'use the SKIT id, e.g. acme/review-kit');
    if (typeof r.bundleHash === 'string' && !HASH.test(r.bundleHash)) report('error', 'FORGE_VALUE_INVALID', `bundle hash "${r.bundleHash}" is not sha256:<64 hex>`, 'use the full bundle hash');
  }
  for (const s of skills) {
    if (typeof s.skill !== 'string') continue;
    if (!SKILL_ID.test(s.skill)) report('error', 'FORGE_VALUE_INVALID', `skill id "${s.skill}" is not owner/name:skill`, 'use the contained skill id');
    if (typeof s.contentHash === 'string' && !HASH.test(s.contentHash)) report('error', 'FORGE_VALUE_INVALID', `content hash "${s.contentHash}" of ${s.skill} is not sha256:<64 hex>`, 'use the full content hash');
    const skit = s.skill.slice(0, s.skill.lastIndexOf(':'));
    if (!releases.some((r) => r.skit === skit && r.version === s.version)) {
      report('warning', 'FORGE_EVIDENCE_ORPHAN_SKILL', `skill ${s.skill}@${String(s.version)} belongs to no listed release`, `list ${skit} ${String(s.version)} under Installed Releases`);
    }
  }
  for (const a of rows(fields.active)) {
    if (typeof a.contentHash === 'string' && !HASH.test(a.contentHash)) report('error', 'FORGE_VALUE_INVALID', `observed content hash "${a.contentHash}" is not sha256:<64 hex>`, 'use the full content hash');
    if (typeof a.skill !== 'string' || typeof a.installMatch !== 'string') continue;
    const expected = expectedInstallMatch(skills, a.skill, typeof a.contentHash === 'string' ? a.contentHash : undefined);
    if (a.installMatch !== expected) {
      report('warning', 'FORGE_EVIDENCE_MATCH', `${a.skill} is marked install match "${a.installMatch}" but the Contained Skills table says "${expected}"`, 'recompute the install match from the installed skills');
    }
  }
}
