import { binary, runSafely, subcommands } from 'cmd-ts';
import { exitCodeFor, fromSystemError, isSfError, leftStderrLineOpen, SfError } from '../core/errors/index.js';
import { FORGE_VERSION } from '../core/version.js';
import { closestMatch } from '../core/text/suggest.js';
import { commandsOf } from './args.js';
import { optionNamesOf, parseProblem } from './parse-problem.js';
import { err } from './output/print.js';
import { write } from './output/stdio.js';
import { Interrupted } from './interrupted.js';
import { colourOn, red, dim, sanitize } from './output/style.js';

/** True when the user asked for machine output, so errors go out as JSON too. */
const wantsJson = (argv: string[]) => argv.some((a) => a === '--json' || a === '--json=true');

/** Asked for help or the version: the only command lines that end in cmd-ts's text with success. */
const asksForText = (argv: string[]) => argv.some((a) => a === '--help' || a === '-h' || a === '--version' || a === '-v');

// eslint-disable-next-line no-control-regex
const withoutColour = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

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
    const { path, command } = checkSubcommands(cmds, argv);
    const result = await runSafely(binary(app), argv);
    if (result._tag === 'error') {
      const { exitCode, message, into } = result.error.config;
      // help and parse errors are coloured by cmd-ts's own chalk, which knows nothing of NO_COLOR
      // or of where the text goes: colour only where sf's own output would have it
      if (exitCode === 0 && asksForText(argv)) {
        const output = into === 'stdout' ? 'stdout' : 'stderr';
        write(output, (colourOn(output) ? message : withoutColour(message)) + '\n');
        return 0;
      }
      // a missing subcommand shows the help, but the command line was incomplete: a usage error
      const text = withoutColour(message).trim();
      if (exitCode === 0) write('stderr', (colourOn('stderr') ? message : text) + '\n');
      const help = `run \`${path.join(' ')} --help\` to see its arguments and subcommands`;
      if (exitCode === 0) return reportError(new SfError('SF_E_USAGE', 'a subcommand is missing', { hint: help }), wantsJson(argv));
      const problem = parseProblem(text, optionNamesOf(command));
      return reportError(new SfError('SF_E_USAGE', `${problem.message} (\`${path.join(' ')}\`)`, {
        hint: problem.suggestion ? `did you mean ${problem.suggestion}? ${help}` : help,
      }), wantsJson(argv));
    }
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    return reportError(e, wantsJson(argv));
  }
}

/**
 * Walks the words before the first option down the command tree and refuses the first one that
 * names no subcommand, saying which word and what it could have been. cmd-ts would print the
 * family's help for `sf observe explain --help` and exit 0, or say "Not a valid subcommand name".
 * Returns the command path (`sf observe destination add`) and the command it names.
 */
function checkSubcommands(cmds: Commands, argv: string[]): { path: string[]; command: unknown } {
  let node: Record<string, unknown> | undefined = cmds;
  let command: unknown;
  const path = ['sf'];
  for (const word of argv.slice(2)) {
    if (!node || word.startsWith('-')) break;
    if (!Object.hasOwn(node, word)) {
      const near = closestMatch(word, Object.keys(node));
      throw new SfError('SF_E_USAGE', `"${word.length > 40 ? `${word.slice(0, 40)}...` : word}" is not a command of \`${path.join(' ')}\``, {
        hint: `${near ? `did you mean \`${path.join(' ')} ${near}\`? ` : ''}the commands are: ${Object.keys(node).join(', ')}`,
      });
    }
    path.push(word);
    command = node[word];
    node = commandsOf(command);
  }
  return { path, command };
}

function reportError(thrown: unknown, json: boolean): number {
  if (thrown instanceof Interrupted) {
    // the user knows what they did: say what it left, not an error (stderr stays JSON-only with --json)
    if (!json) err(thrown.message);
    return Interrupted.EXIT_CODE;
  }
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
  const report = 'please report this with the command you ran and `sf --version`';
  if (json) write('stderr', JSON.stringify({ error: { code: 'SF_E_INTERNAL', message: String(e), hint: report } }, null, 2) + '\n');
  else err(`${red('internal error', 'stderr')}[SF_E_INTERNAL]: ${message}\n  ${report}`);
  return exitCodeFor('SF_E_INTERNAL');
}
