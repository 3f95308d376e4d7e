import { subcommands } from '../../args.js';
import { destinationAddCommand } from './destination-add.js';
import { destinationListCommand } from './destination-list.js';
import { destinationRemoveCommand } from './destination-remove.js';

/** `sf observe destination add|list|remove`. */
export const destinationCommand = subcommands({
  name: 'destination',
  description: 'Manage where normalized observations go: local file, OTLP endpoints, the Forge hub',
  cmds: { add: destinationAddCommand, list: destinationListCommand, remove: destinationRemoveCommand },
});
