import { command } from 'cmd-ts';
import { installArgs, runInstall } from '../skit/install-command.js';

/** `sf add skit <source>`: the canonical install command (same implementation as `sf skit install`). */
export const addSkitCommand = command({
  name: 'skit',
  description: 'Install a SKIT from a local path, archive, SKILL.md URL, git URL or Forge hub id into your agents',
  args: installArgs,
  handler: runInstall,
});
