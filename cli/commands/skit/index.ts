import { subcommands } from '../../args.js';
import { hashCommand } from './hash.js';
import { agentsCommand } from './agents.js';
import { disableCommand, enableCommand } from './enable.js';
import { doctorCommand } from './doctor.js';
import { initCommand } from './init.js';
import { installCommand } from './install-command.js';
import { listCommand } from './list.js';
import { removeCommand } from './remove.js';
import { updateCommand } from './update.js';
import { packCommand } from './pack.js';
import { publishCommand } from './publish.js';
import { pullCommand } from './pull.js';
import { validateCommand } from './validate.js';
import { SKIT_FAMILY } from './read-family.js';

/** Every `sf skit` command by name. */
export const skitCommands = {
  init: initCommand,
  validate: validateCommand,
  hash: hashCommand,
  pack: packCommand,
  install: installCommand,
  enable: enableCommand,
  disable: disableCommand,
  update: updateCommand,
  remove: removeCommand,
  list: listCommand,
  doctor: doctorCommand,
  agents: agentsCommand,
  publish: publishCommand,
  pull: pullCommand,
};

/** `sf skit ...`: the SKIT package-manager family. */
export function skitFamily() {
  return subcommands({ ...SKIT_FAMILY, cmds: skitCommands });
}
