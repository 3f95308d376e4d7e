import { runGoldenCase, type GoldenCase } from '../../test-support/host-config-golden.js';
import { reconcileCodexConfig } from './reconcile-config.js';

const root = '/home/me/proj/.agents/skills';
const skills = (phase: 'install' | 'remove') => phase === 'remove' ? [] : [
  { skillId: 'acme/kit:alpha', name: 'alpha', skillMdPath: `${root}/alpha/SKILL.md`, enabled: true },
  { skillId: 'acme/kit:beta', name: 'beta', skillMdPath: `${root}/beta/SKILL.md`, enabled: false },
];

const cases: GoldenCase[] = [
  { name: 'comments-and-tables', file: 'config.toml' },
  { name: 'crlf', file: 'config.toml' },
  // CRLF and no final newline: the newline Forge adds to append its block goes again with it
  { name: 'no-final-newline', file: 'config.toml' },
  { name: 'empty', file: 'config.toml' },
  { name: 'missing', file: 'config.toml' },
  { name: 'other-skit-block', file: 'config.toml' },
  // a marked block the user edited is Forge's: restored on install, removed on remove
  { name: 'drifted-block', file: 'config.toml', inexactRestore: true },
  { name: 'user-disables-enabled', file: 'config.toml', diagnostics: ['SF_ADAPTER_USER_OVERRIDE'] },
  // a marked block with a key Forge never writes (a line appended after it belongs to it in TOML)
  // is the user's now: kept on remove, and Forge adds its own block beside it
  { name: 'edited-block-extra-key', file: 'config.toml', diagnostics: ['SF_ADAPTER_CONFIG_DRIFT'] },
  // Forge's entry without its marker already disables beta exactly: no second entry, and it stays the user's
  { name: 'unmarked-forge-entry', file: 'config.toml' },
  { name: 'user-enables-conflict', file: 'config.toml', error: 'SF_E_CONFLICT' },
  { name: 'inline-skills-table', file: 'config.toml', error: 'SF_E_CONFIG' },
  { name: 'invalid', file: 'config.toml', error: 'SF_E_CONFIG' },
];

describe('codex [[skills.config]] merge (golden files)', () => {
  for (const c of cases) {
    it(c.name, () => runGoldenCase('codex', c, (file, backups, prev, phase) => reconcileCodexConfig({ file, backupDir: backups, previous: prev, desired: skills(phase) })));
  }
});
