import assert from 'node:assert/strict';
import { skitCommands } from './commands/skit/index.js';
import { skitLibraryCommands } from './commands/skit/library-family.js';
import { entryFor, LIBRARY_SKIT_COMMANDS } from './entries.cjs';

describe('CLI entries (cli/entries.cts)', () => {
  it('routes to the library bundle exactly the skit commands its command tree has, the same command objects as the whole CLI', () => {
    assert.deepEqual(Object.keys(skitLibraryCommands).sort(), [...LIBRARY_SKIT_COMMANDS].sort());
    for (const [name, command] of Object.entries(skitLibraryCommands)) assert.equal(command, skitCommands[name as keyof typeof skitCommands], name);
  });

  it('picks a bundle from the first two arguments only', () => {
    const argv = (...args: string[]) => ['node', 'sf', ...args];
    assert.equal(entryFor(argv('skit', 'hash', '.')), 'sf-skit-read');
    assert.equal(entryFor(argv('skit', 'validate')), 'sf-skit-read');
    assert.equal(entryFor(argv('add', 'skit', './kit')), 'sf-library');
    assert.equal(entryFor(argv('skit', 'doctor', '--fix')), 'sf-library');
    assert.equal(entryFor(argv('skit', 'pack')), 'sf-bundle');
    assert.equal(entryFor(argv('skit')), 'sf-bundle');
    assert.equal(entryFor(argv('add')), 'sf-bundle');
    assert.equal(entryFor(argv('observe', 'list')), 'sf-bundle');
    assert.equal(entryFor(argv('--help')), 'sf-bundle');
    assert.equal(entryFor(argv()), 'sf-bundle');
  });
});
