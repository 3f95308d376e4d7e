import { acceptanceCodec, checklistCodec, fileNotesCodec } from '../template/codecs-list.js';
import { textCodec } from '../template/codecs-text.js';
import type { TemplateSpec } from '../template/spec.js';

const SHA = /^[0-9a-f]{7,64}$/i;

/** `FORGE:BUILDER` (4.1): the handoff to review. */
export const builderTemplate: TemplateSpec = {
  type: 'BUILDER',
  title: { text: 'Implementation Complete' },
  preamble: [
    {
      kind: 'fields',
      fields: [
        { key: 'branch', label: 'Branch', kind: 'code' },
        { key: 'commits', label: 'Commits', kind: 'list' },
        { key: 'filesChanged', label: 'Files changed', kind: 'int' },
      ],
    },
  ],
  sections: [
    { key: 'approach', heading: 'Approach', codec: textCodec },
    { key: 'changes', heading: 'Changes', codec: fileNotesCodec('change') },
    { key: 'acceptanceStatus', heading: 'Acceptance Criteria Status', codec: acceptanceCodec() },
    { key: 'testingChecklist', heading: 'Testing Checklist', codec: checklistCodec() },
  ],
  required: [],
  expected: ['branch', 'commits', 'filesChanged'],
  check(fields, report) {
    const commits = fields.commits;
    if (Array.isArray(commits)) {
      for (const c of commits) {
        if (typeof c === 'string' && !SHA.test(c)) report('warning', 'FORGE_VALUE_NONCANONICAL', `commit "${c}" is not a hexadecimal commit SHA`, 'list abbreviated or full SHAs, e.g. a1b2c3d');
      }
    }
    const changes = fields.changes;
    if (Number.isInteger(fields.filesChanged) && Array.isArray(changes) && changes.length > 0 && changes.length !== fields.filesChanged) {
      report('warning', 'FORGE_COUNT_MISMATCH', `**Files changed** is ${fields.filesChanged as number} but ### Changes lists ${changes.length} files`, 'make the count match the list');
    }
  },
};
