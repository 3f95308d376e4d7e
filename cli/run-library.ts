/**
 * The `sf` process for the commands that install and manage SKITs in the local library: `sf add
 * skit` and `sf skit install|enable|disable|update|remove|list|doctor` (dist/cli/sf-library.cjs
 * is built from this file; cli/sf.cts runs it for those, see cli/entries.cts). Its bundle leaves
 * out the hub, observer, telemetry and annotation code, so less is read and deserialized before
 * the command starts.
 */
import { runApp } from './app.js';
import { addFamily } from './commands/add/index.js';
import { skitLibraryFamily } from './commands/skit/library-family.js';
import { startCli } from './process.js';

startCli((argv) => runApp(argv[2] === 'add' ? { add: addFamily() } : { skit: skitLibraryFamily() }, argv), { exitWhenDone: false });
