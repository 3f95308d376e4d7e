import { subcommands } from '../../args.js';
import { observeDaemonCommand } from './daemon.js';
import { installCommand } from './install.js';
import { statusCommand } from './status.js';
import { doctorCommand } from './doctor.js';
import { updateCommand } from './update.js';
import { uninstallCommand } from './uninstall.js';
import { linkCommand, unlinkCommand } from './link.js';
import { destinationCommand } from './destination.js';

/** `sf observe ...`: the local observer (telemetry for agent skills) and its destinations. */
export function observeFamily() {
  return subcommands({
    name: 'observe',
    description: 'Observe agent skill use: the local observer, its destinations and host adapters',
    cmds: {
      daemon: observeDaemonCommand,
      install: installCommand,
      status: statusCommand,
      doctor: doctorCommand,
      update: updateCommand,
      uninstall: uninstallCommand,
      link: linkCommand,
      unlink: unlinkCommand,
      destination: destinationCommand,
    },
  });
}
