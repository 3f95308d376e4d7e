/**
 * The `sf` process: start-up tracing, pipe handling and the one call into main(). Started by
 * cli/sf.cts, either from the bundle (dist/cli/sf-bundle.cjs, built from this file) or as modules.
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

/**
 * Read-only commands that await all of their work: once they are done and their output is
 * flushed, exiting at once skips the final event-loop turn and garbage collection and the hash
 * workers' own teardown (5-10 ms of `sf skit hash`).
 */
const exitWhenDone = process.argv[2] === 'skit' && (process.argv[3] === 'hash' || process.argv[3] === 'validate');

/** Exits with `code` once everything written to stdout and stderr has reached the OS (a pipe whose reader is slow holds the rest in memory). */
function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    if (exitWhenDone) exitAfterFlush(code);
  },
  (e) => {
    process.stderr.write(`internal error[SF_E_INTERNAL]: ${String(e)}\n`);
    process.exitCode = 10;
  },
);
