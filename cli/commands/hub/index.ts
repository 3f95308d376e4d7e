import { subcommands } from '../../args.js';
import { hubAdminCommand } from './admin.js';
import { hubServeCommand } from './serve.js';

/** `sf hub ...`: run and administer a Forge hub. */
export function hubFamily() {
  return subcommands({
    name: 'hub',
    description: 'Run and administer a Forge hub',
    cmds: {
      serve: hubServeCommand,
      admin: hubAdminCommand,
    },
  });
}
