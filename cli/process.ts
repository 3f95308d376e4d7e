/**
 * The `sf` process around a command line: start-up tracing, pipe handling, exit codes. Shared by
 * the two CLI entries, cli/run.ts (every command) and cli/run-skit-read.ts (`sf skit hash` and
 * `sf skit validate` alone, a bundle a quarter the size); cli/sf.cts picks one.
 */
import { trace } from '../core/trace/startup.js';

export interface CliOptions {
  /**
   * The command awaits all of its work: once its output is flushed the process exits at once,
   * skipping the final event-loop turn, garbage collection and the hash workers' own teardown
   * (5-10 ms of `sf skit hash`).
   */
  exitWhenDone: boolean;
}

/** Runs `main` on process.argv and sets the exit code it returns. */
export function startCli(main: (argv: string[]) => Promise<number>, { exitWhenDone }: CliOptions): void {
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
      if (exitWhenDone) exitAfterFlush(code);
    },
    (e) => {
      process.stderr.write(`internal error[SF_E_INTERNAL]: ${String(e)}\n`);
      process.exitCode = 10;
    },
  );
}

/** Exits with `code` once everything written to stdout and stderr has reached the OS (a pipe whose reader is slow holds the rest in memory). */
function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}
