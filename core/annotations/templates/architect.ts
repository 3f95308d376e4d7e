import { RISK_SEVERITIES } from '../enums.js';
import { checklistCodec, fileNotesCodec, stepsCodec } from '../template/codecs-list.js';
import { tableCodec } from '../template/codecs-table.js';
import type { TemplateSpec } from '../template/spec.js';

/** `FORGE:ARCHITECT` (4.1): the builder's primary implementation guide. */
export const architectTemplate: TemplateSpec = {
  type: 'ARCHITECT',
  title: { text: 'Implementation Plan for #{number}', key: 'number', keyKind: 'int' },
  preamble: [],
  sections: [
    {
      key: 'affectedPaths',
      heading: 'Affected Paths (ALL must be updated)',
      codec: tableCodec({
        columns: [
          { key: 'index', header: '#', kind: 'index' },
          { key: 'file', header: 'File' },
          { key: 'symbol', header: 'Function/Class' },
          { key: 'change', header: 'Change Required' },
          { key: 'why', header: 'Why' },
        ],
      }),
    },
    { key: 'implementationOrder', heading: 'Implementation Order', codec: stepsCodec() },
    { key: 'consistencyChecks', heading: 'Consistency Checks', codec: checklistCodec() },
    {
      key: 'risks',
      heading: 'Risk Assessment',
      codec: tableCodec({
        columns: [
          { key: 'risk', header: 'Risk' },
          { key: 'severity', header: 'Severity', enum: RISK_SEVERITIES },
          { key: 'mitigation', header: 'Mitigation' },
        ],
      }),
    },
    { key: 'filesToRead', heading: 'Files to Read Before Coding', codec: fileNotesCodec('why') },
  ],
  required: [],
  expected: ['number', 'affectedPaths'],
};
