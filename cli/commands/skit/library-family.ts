import { subcommands } from '../../args.js';
import { disableCommand, enableCommand } from './enable.js';
import { doctorCommand } from './doctor.js';
import { installCommand } from './install-command.js';
import { listCommand } from './list.js';
import { removeCommand } from './remove.js';
import { updateCommand } from './update.js';
import { SKIT_FAMILY } from './read-family.js';

/** The library commands of `sf skit` (cli/entries.cts routes exactly these names here; a test holds them equal). */
export const skitLibraryCommands = { install: installCommand, enable: enableCommand, disable: disableCommand, update: updateCommand, remove: removeCommand, list: listCommand, doctor: doctorCommand };

/**
 * `sf skit` with only the commands that install and manage SKITs in the local library: the
 * command tree of cli/run-library.ts (with `sf add skit`), whose bundle holds nothing else.
 */
export function skitLibraryFamily() {
  return subcommands({ ...SKIT_FAMILY, cmds: skitLibraryCommands });
}
