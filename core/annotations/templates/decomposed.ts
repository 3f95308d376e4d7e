import { subIssuesCodec } from '../template/codecs-list.js';
import { textCodec } from '../template/codecs-text.js';
import type { TemplateSpec } from '../template/spec.js';

/** `FORGE:DECOMPOSED` (4.1): posted on a parent issue after it was split into sub-issues. */
export const decomposedTemplate: TemplateSpec = {
  type: 'DECOMPOSED',
  title: { text: 'Decomposition Complete' },
  preamble: [],
  sections: [
    { key: 'subIssues', heading: 'Sub-Issues Created', codec: subIssuesCodec() },
    { key: 'rationale', heading: 'Decomposition Rationale', codec: textCodec },
  ],
  required: [],
  expected: ['subIssues', 'rationale'],
};
