import { TASK_TYPES } from '../enums.js';
import { checklistCodec } from '../template/codecs-list.js';
import { tableCodec } from '../template/codecs-table.js';
import { textCodec } from '../template/codecs-text.js';
import type { TemplateSpec } from '../template/spec.js';

/**
 * `FORGE:CONTRACT` (4.1). The spec states no completion sentinel for it (the generic 3.2 forms are
 * accepted) and no required fields: a missing template part is a warning, and completion without
 * a sentinel follows the structure rules of parse-body (not these fields).
 */
export const contractTemplate: TemplateSpec = {
  type: 'CONTRACT',
  title: { text: 'Builder Contract' },
  preamble: [{ kind: 'fields', fields: [{ key: 'taskType', label: 'Task type', kind: 'text', enum: TASK_TYPES }] }],
  sections: [
    { key: 'approach', heading: 'Proposed Approach', codec: textCodec },
    {
      key: 'deliverables',
      heading: 'Deliverables',
      codec: tableCodec({
        columns: [
          { key: 'file', header: 'File' },
          { key: 'change', header: 'Change' },
          { key: 'why', header: 'Why' },
        ],
      }),
    },
    { key: 'acceptanceCriteria', heading: 'Acceptance Criteria', codec: checklistCodec() },
    { key: 'qualityConsiderations', heading: 'Quality Considerations', codec: textCodec },
    { key: 'outOfScope', heading: 'Out of Scope', codec: textCodec },
  ],
  required: [],
  expected: ['taskType', 'approach', 'deliverables', 'acceptanceCriteria'],
};
