/**
 * The `sf` process around a command line: start-up tracing, pipe handling, exit codes. Shared by
 * the two CLI entries, cli/run.ts (every command) and cli/run-skit-read.ts (`sf skit hash` and
 * `sf skit validate` alone, a bundle a quarter the size); cli/sf.cts picks one.
 */
import { trace } from '../core/trace/startup.js';
import { whenFlushed, write } from './output/stdio.js';

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

  main(process.argv).then(
    (code) => {
      process.exitCode = code;
      if (exitWhenDone) exitAfterFlush(code);
    },
    (e) => {
      write('stderr', `internal error[SF_E_INTERNAL]: ${String(e)}\n`);
      process.exitCode = 10;
    },
  );
}

/** Exits with `code` once everything written to stdout and stderr has reached the OS (see output/stdio.ts). */
function exitAfterFlush(code: number): void {
  whenFlushed(() => process.exit(code));
}
