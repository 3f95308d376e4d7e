import { command, flag } from 'cmd-ts';
import { out, printJson, printTable } from '../../output/print.js';
import { loadObserveState } from './shared.js';

/** `sf observe destination list`: configured destinations (credential references only, never values). */
export const destinationListCommand = command({
  name: 'list',
  description: 'List destinations (credentials are shown as references, never as values)',
  args: { json: flag({ long: 'json', description: 'print the destinations as JSON' }) },
  handler: async ({ json }) => {
    const { describeDestination } = await import('../../../core/observer/destination-spec.js');
    const { config } = await loadObserveState();
    if (json) return printJson({ destinations: config.destinations });
    if (config.destinations.length === 0) return out('no destinations; add one with `sf observe destination add <name> file:PATH|otlp:URL|hub`');
    printTable(['name', 'type', 'target'], config.destinations.map((d) => [d.name, d.type, describeDestination(d)]));
  },
});
