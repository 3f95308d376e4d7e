import { addFamily } from './add/index.js';
import { skitFamily } from './skit/index.js';
import { hubFamily } from './hub/index.js';
import { forgeFamily } from './forge/index.js';
import { loginCommand, logoutCommand } from './account/index.js';

/**
 * Command families of `sf`. Each family lives in its own folder under cli/commands/ with one file
 * per subcommand; handlers stay thin and lazy-import heavy modules so `--help` and fast reads
 * stay fast.
 */
export function families() {
  return {
    add: addFamily(),
    skit: skitFamily(),
    hub: hubFamily(),
    forge: forgeFamily(),
    login: loginCommand,
    logout: logoutCommand,
  };
}
