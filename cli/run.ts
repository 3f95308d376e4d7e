/**
 * The `sf` process for every command (dist/cli/sf-bundle.cjs is built from this file). Started by
 * cli/sf.cts, either from the bundle or as modules.
 */
import { main } from './main.js';
import { startCli } from './process.js';
import { isSkitRead } from './entries.cjs';

startCli(main, { exitWhenDone: isSkitRead(process.argv) });
