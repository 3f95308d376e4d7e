import { textCodec } from '../template/codecs-text.js';
import type { TemplateSpec } from '../template/spec.js';

/** `FORGE:CONTEXT` (4.1): institutional memory; a time-limited run ends with the partial sentinel. */
export const contextTemplate: TemplateSpec = {
  type: 'CONTEXT',
  title: { text: 'Implementation Context for #{number}', key: 'number', keyKind: 'int' },
  preamble: [],
  sections: [
    { key: 'knownPitfalls', heading: 'Known Pitfalls for This Area', codec: textCodec },
    { key: 'historicalFindings', heading: 'Historical Findings on These Files', codec: textCodec },
    { key: 'pastBugs', heading: 'Past Bugs in This Module', codec: textCodec },
    { key: 'relatedCodePaths', heading: 'Related Code Paths (must stay consistent)', codec: textCodec },
    { key: 'bugPatterns', heading: 'Patterns That Cause Bugs Here', codec: textCodec },
    { key: 'similarImplementations', heading: 'Successful Similar Implementations', codec: textCodec },
  ],
  required: [],
  expected: ['number'],
};
