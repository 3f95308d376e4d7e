import { REVIEW_VERDICTS } from '../enums.js';
import { findingsCodec } from '../template/codecs-findings.js';
import type { TemplateSpec } from '../template/spec.js';

/**
 * `FORGE:REVIEWER` (4.1), one per review domain (`{AGENT_TYPE}`, e.g. SECURITY). The spec states
 * no completion sentinel (the generic 3.2 forms are accepted) and no required fields: a missing
 * domain, verdict, Findings section or finding field is a warning, never an error.
 */
export const reviewerTemplate: TemplateSpec = {
  type: 'REVIEWER',
  title: { text: 'Review — {agentType}', key: 'agentType', keyKind: 'text' },
  preamble: [{ kind: 'fields', fields: [{ key: 'verdict', label: 'Verdict', kind: 'text', enum: REVIEW_VERDICTS }] }],
  sections: [{ key: 'findings', heading: 'Findings', codec: findingsCodec }],
  required: [],
  expected: ['agentType', 'verdict', 'findings'],
  check(fields, report) {
    const t = fields.agentType;
    if (typeof t === 'string' && !/^[A-Z][A-Z0-9_]*$/.test(t)) {
      report('info', 'FORGE_VALUE_NONCANONICAL', `review domain "${t}" is not an upper-case name such as SECURITY or LOGIC`);
    }
  },
};
