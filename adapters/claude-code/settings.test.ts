import { runGoldenCase, type GoldenCase } from '../../test-support/host-config-golden.js';
import { reconcileClaudeSettings } from './settings.js';

const skills = (phase: 'install' | 'remove') => phase === 'remove' ? [] : [
  { skillId: 'acme/kit:alpha', name: 'alpha', enabled: true },
  { skillId: 'acme/kit:beta', name: 'beta', enabled: false },
];

const cases: GoldenCase[] = [
  { name: 'comments-unknown-keys', file: 'settings.json' },
  { name: 'tabs-crlf', file: 'settings.json' },
  // a document on one line gets Forge's entry on that line too: install then remove gives the bytes back
  { name: 'bom-no-final-newline', file: 'settings.json' },
  // one-line objects and arrays (and a trailing comma) before the insertion point are not reflowed
  { name: 'one-line-values', file: 'settings.json' },
  // comments in an otherwise empty object stay through install and remove
  { name: 'comment-in-empty-object', file: 'settings.json' },
  { name: 'empty', file: 'settings.json' },
  { name: 'whitespace-only', file: 'settings.json' },
  { name: 'missing', file: 'settings.json' },
  { name: 'user-override-same', file: 'settings.json' },
  { name: 'user-off-for-enabled', file: 'settings.json', diagnostics: ['SF_ADAPTER_USER_OVERRIDE'] },
  { name: 'user-override-conflict', file: 'settings.json', error: 'SF_E_CONFLICT' },
  { name: 'invalid', file: 'settings.json', error: 'SF_E_CONFIG' },
  { name: 'not-an-object', file: 'settings.json', error: 'SF_E_CONFIG' },
];

describe('claude-code skillOverrides merge (golden files)', () => {
  for (const c of cases) {
    it(c.name, () => runGoldenCase('claude-code', c, (file, backups, prev, phase) => reconcileClaudeSettings(file, backups, prev, skills(phase))));
  }
});
