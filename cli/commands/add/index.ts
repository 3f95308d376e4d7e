import { subcommands } from '../../args.js';
import { addSkitCommand } from './skit.js';

/** `sf add ...`: the cross-resource add command. */
export function addFamily() {
  return subcommands({
    name: 'add',
    description: 'Add a resource (a SKIT) to your agents',
    cmds: {
      skit: addSkitCommand,
    },
  });
}
