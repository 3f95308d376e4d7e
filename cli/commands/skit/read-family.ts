import { subcommands } from '../../args.js';
import { hashCommand } from './hash.js';
import { validateCommand } from './validate.js';

/** The name and help text of `sf skit`, the same in both command trees that have it. */
export const SKIT_FAMILY = { name: 'skit', description: 'Create, validate, hash, pack, install and manage SKITs' } as const;

/**
 * `sf skit` with only its read-only SKIT commands, hash and validate: the command tree of
 * cli/run-skit-read.ts, whose bundle holds nothing else (cli/sf.cts runs it for these two).
 */
export function skitReadFamily() {
  return subcommands({ ...SKIT_FAMILY, cmds: { validate: validateCommand, hash: hashCommand } });
}
