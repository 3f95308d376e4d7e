import { runGoldenCase, type GoldenCase } from '../../test-support/host-config-golden.js';
import { reconcileOpenCodePermission } from './permission.js';

const skills = (phase: 'install' | 'remove') => phase === 'remove' ? [] : [
  { skillId: 'acme/kit:alpha', name: 'alpha', enabled: true },
  { skillId: 'acme/kit:beta', name: 'beta', enabled: false },
];

const cases: GoldenCase[] = [
  { name: 'jsonc-comments', file: 'opencode.jsonc' },
  { name: 'skill-string', file: 'opencode.json' },
  { name: 'no-permission', file: 'opencode.json' },
  { name: 'crlf', file: 'opencode.json' },
  { name: 'missing', file: 'opencode.json' },
  { name: 'user-allow-conflict', file: 'opencode.json', error: 'SF_E_CONFLICT' },
  { name: 'permission-string', file: 'opencode.json', error: 'SF_E_CONFIG' },
  { name: 'invalid', file: 'opencode.json', error: 'SF_E_CONFIG' },
];

describe('opencode permission.skill merge (golden files)', () => {
  for (const c of cases) {
    it(c.name, () => runGoldenCase('opencode', c, (file, backups, prev, phase) => reconcileOpenCodePermission(file, backups, prev, skills(phase))));
  }
});
