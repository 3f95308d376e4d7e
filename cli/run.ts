/**
 * The `sf` process: start-up tracing, pipe handling and the one call into main(). Started by
 * cli/sf.ts, either from the bundle (dist/cli/sf-bundle.cjs, built from this file) or as modules.
 */
import { trace } from '../core/trace/startup.js';
import { main } from './main.js';

trace('cli loaded');
process.on('exit', () => trace('exit'));

// A closed pipe (`sf skit hash | head`) is the reader's choice, not an error: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`internal error[SF_E_INTERNAL]: ${String(e)}\n`);
    process.exitCode = 10;
  },
);
