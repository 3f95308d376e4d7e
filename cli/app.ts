import { binary, runSafely, subcommands } from 'cmd-ts';
import { exitCodeFor, fromSystemError, isSfError, leftStderrLineOpen } from '../core/errors/index.js';
import { FORGE_VERSION } from '../core/version.js';
import { err } from './output/print.js';
import { write } from './output/stdio.js';
import { red, dim, sanitize } from './output/style.js';

/** True when the user asked for machine output, so errors go out as JSON too. */
const wantsJson = (argv: string[]) => argv.includes('--json');

/** The command families (or single commands) below `sf`. */
export type Commands = Parameters<typeof subcommands>[0]['cmds'];

/**
 * The single error funnel of the CLI: runs `argv` against the `sf` command tree made of `cmds`
 * (every family, or only what an entry such as cli/run-skit-read.ts serves); every command
 * failure ends here, is printed once, and turns into the exit code registered for its error code.
 */
export async function runApp(cmds: Commands, argv: string[]): Promise<number> {
  const app = subcommands({ name: 'sf', version: FORGE_VERSION, description: 'Forge SKIT toolkit', cmds });
  try {
    const result = await runSafely(binary(app), argv);
    if (result._tag === 'error') {
      const { exitCode, message, into } = result.error.config;
      write(into === 'stdout' ? 'stdout' : 'stderr', message + '\n');
      return exitCode === 0 ? 0 : 2;
    }
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    return reportError(e, wantsJson(argv));
  }
}

function reportError(thrown: unknown, json: boolean): number {
  // keep our report (and --json's object) on lines of its own after lmdb's unterminated one
  if (leftStderrLineOpen(thrown)) write('stderr', '\n');
  // a full disk or a denied path is the user's to fix, not a bug to report
  const e = fromSystemError(thrown) ?? thrown;
  if (isSfError(e)) {
    if (json) {
      write('stderr', JSON.stringify({ error: e.toJSON() }, null, 2) + '\n');
    } else {
      const loc = e.location?.file
        ? ` (${sanitize(e.location.file)}${e.location.line ? `:${e.location.line}${e.location.column ? `:${e.location.column}` : ''}` : ''}${e.location.pointer ? ` ${e.location.pointer}` : ''})`
        : '';
      err(`${red('error', 'stderr')}[${e.code}]: ${sanitize(e.message)}${loc}`);
      if (e.hint) err(dim(`  hint: ${sanitize(e.hint)}`, 'stderr'));
    }
    return exitCodeFor(e.code);
  }
  const message = e instanceof Error ? e.stack ?? e.message : String(e);
  if (json) write('stderr', JSON.stringify({ error: { code: 'SF_E_INTERNAL', message: String(e) } }) + '\n');
  else err(`${red('internal error', 'stderr')}[SF_E_INTERNAL]: ${message}\n  please report this with the command you ran and \`sf --version\``);
  return exitCodeFor('SF_E_INTERNAL');
}
