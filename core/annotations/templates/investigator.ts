import { CONFIDENCE_LEVELS, INVESTIGATION_VERDICTS, SEVERITIES, TASK_TYPES } from '../enums.js';
import { numberedCodec } from '../template/codecs-list.js';
import { assessmentCodec, textCodec } from '../template/codecs-text.js';
import type { TemplateSpec } from '../template/spec.js';

/** `FORGE:INVESTIGATOR` (4.1); required fields from the spec's field table (the only one the spec states). */
export const investigatorTemplate: TemplateSpec = {
  type: 'INVESTIGATOR',
  title: { text: 'Investigation Report' },
  preamble: [
    {
      kind: 'fields',
      fields: [
        { key: 'verdict', label: 'Verdict', kind: 'text', enum: INVESTIGATION_VERDICTS },
        { key: 'confidence', label: 'Confidence', kind: 'text', enum: CONFIDENCE_LEVELS },
        { key: 'severity', label: 'Severity', kind: 'text', enum: SEVERITIES },
        { key: 'taskType', label: 'Task Type', kind: 'text', enum: TASK_TYPES },
      ],
    },
  ],
  sections: [
    { key: 'whatWasClaimed', heading: 'What Was Claimed', codec: textCodec },
    { key: 'whatWeFound', heading: 'What We Found', codec: textCodec },
    { key: 'rootCause', heading: 'Root Cause', codec: textCodec },
    { key: 'affectedFiles', heading: 'Affected Files', codec: numberedCodec() },
    { key: 'evidence', heading: 'Evidence', codec: textCodec },
    { key: 'recommendation', heading: 'Recommendation', codec: textCodec },
    { key: 'decomposition', heading: 'Decomposition Assessment', codec: assessmentCodec },
  ],
  required: ['verdict', 'confidence', 'severity', 'taskType', 'decomposition'],
};
