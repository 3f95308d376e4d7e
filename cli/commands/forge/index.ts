import { subcommands } from '../../args.js';
import { checkCommand } from './check.js';
import { evidenceCommand } from './evidence.js';
import { fetchCommand } from './fetch.js';
import { parseCommand } from './parse.js';
import { renderCommand } from './render.js';

/** `sf forge ...`: the FORGE annotation protocol v1.0 (docs/forge-annotations.md). */
export function forgeFamily() {
  return subcommands({
    name: 'forge',
    description: 'Parse, render, check and fetch FORGE annotations in issue and pull-request threads',
    cmds: {
      parse: parseCommand,
      render: renderCommand,
      check: checkCommand,
      fetch: fetchCommand,
      evidence: evidenceCommand,
    },
  });
}
