import { closestMatch } from '../core/text/suggest.js';

/** The option names a cmd-ts command takes, as its `register` announces them to the parser. */
export interface OptionNames {
  long: string[];
  short: string[];
  /** the long and short names that take a value (options, not flags) */
  valued: string[];
}

/** The long and short names of the flags and options of `command` (a cmd-ts command), help and version included. */
export function optionNamesOf(command: unknown): OptionNames {
  const sets = { forceFlagLongNames: new Set<string>(), forceFlagShortNames: new Set<string>(), forceOptionLongNames: new Set<string>(), forceOptionShortNames: new Set<string>() };
  (command as { register?: (opts: typeof sets) => void }).register?.(sets);
  return {
    long: [...sets.forceFlagLongNames, ...sets.forceOptionLongNames],
    short: [...sets.forceFlagShortNames, ...sets.forceOptionShortNames],
    valued: [...sets.forceOptionLongNames, ...sets.forceOptionShortNames],
  };
}

const shown = (word: string) => (word.length > 40 ? `${word.slice(0, 40)}...` : word);

/** True when `word` (`--agent`, `--agent=x`, `-o`) is itself an option of the command. */
function isOptionOf(word: string, names: OptionNames): boolean {
  if (word.startsWith('--')) return names.long.includes(word.slice(2).split('=')[0]);
  return word.length === 2 && names.short.includes(word.slice(1));
}

/** `--jsn` -> `--json`; `-o` -> the one long option starting with o, if there is one. */
function nearestOption(word: string, names: OptionNames): string | undefined {
  if (word.startsWith('--')) {
    const near = closestMatch(word.slice(2).split('=')[0], names.long);
    return near && `--${near}`;
  }
  const letter = word.slice(1, 2);
  const starting = names.long.filter((n) => n.startsWith(letter) && n !== 'help' && n !== 'version');
  return starting.length === 1 ? `--${starting[0]}` : undefined;
}

/**
 * What cmd-ts's parse error says, in one line that names the word it refused: cmd-ts marks that
 * word with a caret under the echoed command line, which the rest of its text does not repeat.
 * An unknown option comes with the closest option of `command` (`names`).
 */
export function parseProblem(text: string, names: OptionNames): { message: string; suggestion?: string; hint?: string } {
  const lines = text.split('\n');
  const problems: string[] = [];
  let suggestion: string | undefined;
  let hint: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const caret = /^\s*\^\s*(.*)$/.exec(line);
    if (caret) {
      // the echoed command line is the line before; the word starts under the caret
      const word = (lines[i - 1] ?? '').slice(line.indexOf('^')).split(' ')[0];
      const echoed = (lines[i - 1] ?? '').slice(line.indexOf('^') + word.length + 1).split(' ');
      const valued = names.valued.includes(word.replace(/^--?/, ''));
      const repeated = repetition(caret[1].trim(), word);
      if (repeated) {
        problems.push(repeated);
        hint ??= 'give each option once (the last one does not win)';
        continue;
      }
      problems.push(describe(caret[1].trim(), word, valued ? echoed[0] : undefined));
      // an option whose value is missing is left over too: it is not misspelt
      if (/^Unknown arguments/i.test(caret[1]) && word.startsWith('-') && !isOptionOf(word, names)) suggestion ??= nearestOption(word, names);
      continue;
    }
    const trimmed = line.trim();
    if (!trimmed || /^error: found \d+ error/.test(trimmed) || trimmed.startsWith('hint:') || /^Along with the following/.test(trimmed)) continue;
    if (i + 1 < lines.length && /^\s*\^/.test(lines[i + 1])) continue; // the echoed command line
    problems.push(trimmed.replace(/^\d+\.\s+/, ''));
  }
  // an option given without its value is also left over as an unknown argument: say it once
  const said = problems.filter((p, i) => !/^unknown option /.test(p) || !problems.some((q, j) => j !== i && q.includes(`provided for ${p.slice('unknown option '.length).split('=')[0]}`)));
  return { message: said.join('; ') || 'the command line could not be parsed', ...(suggestion ? { suggestion } : {}), ...(hint ? { hint } : {}) };
}

/**
 * cmd-ts's refusal of a flag or option given more than once ("Expected 1 occurence, got 2", "Too
 * many times provided. Expected 1, got: 2"), in sf's words: `--json given 2 times`.
 */
function repetition(problem: string, word: string): string | undefined {
  const times = /^Expected 1 occurence, got (\d+)$/.exec(problem) ?? /^Too many times provided\. Expected 1, got: (\d+)$/.exec(problem);
  return times && word ? `${shown(word.split('=')[0])} given ${times[1]} times` : undefined;
}

function describe(problem: string, word: string, next: string | undefined): string {
  if (!word) return problem;
  if (/^Unknown arguments/i.test(problem)) return word.startsWith('-') ? `unknown option ${shown(word)}` : `unexpected argument "${shown(word)}"`;
  if (problem.includes(word)) return problem;
  // a bad value its type quoted (cli/args.ts `integer`): `--issue "5abc" is not a whole number`
  if (problem.startsWith('"')) return `${shown(word.split('=')[0])} ${problem}`;
  // a bad value: name the option and the value it was given
  const value = word.includes('=') || !next ? '' : ` ${shown(next)}`;
  return `${shown(word)}${value}: ${lowerFirst(problem)}`;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
