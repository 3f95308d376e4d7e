import { subcommands } from 'cmd-ts';
import { initCommand } from './init.js';

/** `sf skit ...`: the SKIT package-manager family. */
export function skitFamily() {
  return subcommands({
    name: 'skit',
    description: 'Create, validate, hash, pack, install and manage SKITs',
    cmds: {
      init: initCommand,
    },
  });
}
