import { binary, runSafely } from 'cmd-ts';
import { exitCodeFor, fromSystemError, isSfError, leftStderrLineOpen, SfError } from '../core/errors/index.js';
import { FORGE_VERSION } from '../core/version.js';
import { closestMatch } from '../core/text/suggest.js';
import { commandsOf, subcommands } from './args.js';
import { optionNamesOf, parseProblem } from './parse-problem.js';
import { err } from './output/print.js';
import { write } from './output/stdio.js';
import { Interrupted } from './interrupted.js';
import { colourOn, red, dim, sanitize } from './output/style.js';

/** True when the user asked for machine output, so errors go out as JSON too; a word after `--` is an argument, not --json. */
const wantsJson = (argv: string[]) => beforeDashes(argv).some((a) => a === '--json' || a === '--json=true');

const beforeDashes = (argv: string[]) => (argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv);

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
    const { path, command } = checkSubcommands(app, argv);
    refuseEmptyArguments(path, command, argv);
    const result = await runSafely(binary(app), argv);
    if (result._tag === 'error') {
      const { exitCode, message, into } = result.error.config;
      // help and parse errors are coloured by cmd-ts's own chalk, which knows nothing of NO_COLOR
      // or of where the text goes: colour only where sf's own output would have it
      const text = withoutColour(message).trim();
      const help = `run \`${path.join(' ')} --help\` to see its arguments and subcommands`;
      const rest = argv.slice(path.length + 1);
      const family = commandsOf(command);
      if (exitCode === 0) {
        // cmd-ts ends with success only for help or the version: asked for (`-h`, `-xh`,
        // `--help=true`, `sf -v`), or the help it shows a family given no more words
        if (!family || rest.length > 0) {
          const output = into === 'stdout' ? 'stdout' : 'stderr';
          write(output, (colourOn(output) ? message : withoutColour(message)) + '\n');
          return 0;
        }
        // a missing subcommand shows the help, but the command line was incomplete: a usage error
        write('stderr', (colourOn('stderr') ? message : text) + '\n');
        return reportError(new SfError('SF_E_USAGE', 'a subcommand is missing', { hint: help }), wantsJson(argv));
      }
      // a family refuses what comes before its subcommand: only --help (and `sf --version`) go
      // there; an unknown option takes the next word as its value (`sf -x skit list`: "list" is
      // no command of `sf`), the words before options having been checked above
      if (family && /No value provided for subcommand|Not a valid subcommand name/.test(text)) return reportError(familyOptionError(path, family, rest), wantsJson(argv));
      const problem = parseProblem(text, optionNamesOf(command));
      const hint = [problem.suggestion && `did you mean ${problem.suggestion}?`, problem.hint && `${problem.hint};`, help].filter(Boolean).join(' ');
      return reportError(new SfError('SF_E_USAGE', `${problem.message} (\`${path.join(' ')}\`)`, { hint }), wantsJson(argv));
    }
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    return reportError(e, wantsJson(argv));
  }
}

/**
 * What is wrong with `sf -V`, `sf --json`, `sf skit --bogus` or `sf --version skit`: an option in
 * front of the subcommand, where a family takes only --help (and `sf` --version). cmd-ts says "No
 * value provided for subcommand", and had no command to name the option's owner.
 */
function familyOptionError(path: string[], family: Record<string, unknown>, rest: string[]): SfError {
  const at = `\`${path.join(' ')}\``;
  const commands = Object.keys(family).join(', ');
  const word = beforeDashes(rest).find((w) => w.startsWith('-'));
  if (!word) return new SfError('SF_E_USAGE', `a subcommand is missing (${at})`, { hint: `the commands are: ${commands}; run \`${path.join(' ')} --help\`` });
  const shownWord = word.length > 40 ? `${word.slice(0, 40)}...` : word;
  const name = word.split('=')[0];
  if (path.length === 1 && (name === '--version' || name === '-v')) {
    return new SfError('SF_E_USAGE', `${shownWord} takes no other arguments (${at})`, { hint: `run \`sf ${name}\` alone, or \`sf <command> --help\` for a command's help` });
  }
  const own = path.length === 1 ? '--help (-h) and --version (-v)' : '--help (-h)';
  const version = path.length > 1 && (name === '--version' || name === '-v') ? '`sf --version` prints the version; ' : '';
  return new SfError('SF_E_USAGE', `unknown option ${shownWord} (${at})`, {
    hint: `${version}${at} takes only ${own} before ${path.length === 1 ? 'a' : 'its'} command; give other options after the command (the commands are: ${commands})`,
  });
}

/**
 * Walks the words before the first option down the command tree and refuses the first one that
 * names no subcommand, saying which word and what it could have been. cmd-ts would print the
 * family's help for `sf observe explain --help` and exit 0, or say "Not a valid subcommand name".
 * Returns the command path (`sf observe destination add`) and the command it names (`app` for `sf`).
 */
function checkSubcommands(app: unknown, argv: string[]): { path: string[]; command: unknown } {
  let node: Record<string, unknown> | undefined = commandsOf(app);
  let command = app;
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

/**
 * Refuses an empty or blank argument of a command (`sf skit update "$ID"` with ID unset): cmd-ts
 * drops an empty word, so the command ran as if the argument were left out, which for `update`
 * means every SKIT in the scope. An empty option value is refused by cli/args.ts `option`.
 */
function refuseEmptyArguments(path: string[], command: unknown, argv: string[]): void {
  if (commandsOf(command)) return;
  const { valued } = optionNamesOf(command);
  const words = argv.slice(path.length + 1);
  let dashes = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === '--' && !dashes) {
      dashes = true;
      continue;
    }
    if (word.trim() !== '') continue;
    const before = words[i - 1] ?? '';
    const isValue = !dashes && (/^--[^=]+$/.test(before) ? valued.includes(before.slice(2)) : /^-[^-]$/.test(before) && valued.includes(before.slice(1)));
    if (isValue) continue;
    throw new SfError('SF_E_USAGE', `an empty argument ${JSON.stringify(word)} (\`${path.join(' ')}\`)`, {
      hint: `give a value there (a shell variable that is not set?), or leave the argument out; run \`${path.join(' ')} --help\``,
    });
  }
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
      // a message that already names the file needs it repeated only with a line or pointer
      const named = e.location?.file !== undefined && !e.location.line && !e.location.pointer && e.message.includes(e.location.file);
      const loc = e.location?.file && !named
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
