import { skitFamily } from './skit/index.js';
import { hubFamily } from './hub/index.js';

/**
 * Command families of `sf`. Each family lives in its own folder under cli/commands/ with one file
 * per subcommand; handlers stay thin and lazy-import heavy modules so `--help` and fast reads
 * stay fast.
 */
export function families() {
  return {
    skit: skitFamily(),
    hub: hubFamily(),
  };
}
