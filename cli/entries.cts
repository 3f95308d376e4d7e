/**
 * Which CLI entry runs a command line. `sf` has three bundles (scripts/build.mjs), each built from
 * one entry and started by cli/sf.cts; a smaller bundle is read and deserialized faster, so the
 * commands users run most often start from one that holds only what they need:
 *
 *   sf-skit-read  cli/run-skit-read.ts  `sf skit hash`, `sf skit validate`
 *   sf-library    cli/run-library.ts    `sf add skit`, `sf skit install|enable|disable|update|remove|list|doctor`
 *   sf-bundle     cli/run.ts            everything (help, other commands, unknown names)
 *
 * CommonJS so that cli/sf.cts can require it; cli/run.ts imports it too.
 */

export type CliEntry = 'sf-skit-read' | 'sf-library' | 'sf-bundle';

/** `sf skit` commands that run from sf-library (cli/commands/skit/library-family.ts has exactly these). */
export const LIBRARY_SKIT_COMMANDS: ReadonlySet<string> = new Set(['install', 'enable', 'disable', 'update', 'remove', 'list', 'doctor']);

/** The read-only SKIT commands: they exit as soon as their output is flushed. */
export const isSkitRead = (argv: readonly string[]): boolean => argv[2] === 'skit' && (argv[3] === 'hash' || argv[3] === 'validate');

export function entryFor(argv: readonly string[]): CliEntry {
  if (isSkitRead(argv)) return 'sf-skit-read';
  if ((argv[2] === 'add' && argv[3] === 'skit') || (argv[2] === 'skit' && LIBRARY_SKIT_COMMANDS.has(argv[3]))) return 'sf-library';
  return 'sf-bundle';
}
