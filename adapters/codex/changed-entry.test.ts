import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adapterFixture, type AdapterFixture } from '../../test-support/adapter-fixture.js';
import { createCodexAdapter } from './adapter.js';

/** A disabled skill whose Forge `[[skills.config]]` entry someone edited: doctor names what is there and what Forge expects. */
describe('codex adapter: a changed Forge [[skills.config]] entry', () => {
  let f: AdapterFixture;
  beforeEach(async () => (f = await adapterFixture()));
  afterEach(() => f.cleanup());
  const adapter = createCodexAdapter();
  const file = () => join(f.home, '.codex/config.toml');
  const beta = () => join(f.home, '.agents/skills/beta/SKILL.md');

  /** Installs with beta disabled, edits Forge's block with `edit`, and returns the exposed-skill messages. */
  async function exposedAfter(edit: (text: string) => string): Promise<string[]> {
    const record = await adapter.project(f.request(['beta']), f.ctx('user'));
    await writeFile(file(), edit(readFileSync(file(), 'utf8')));
    const found = await adapter.diagnose(f.request(['beta']), record, f.ctx('user'));
    return found.filter((d) => d.code === 'SF_DRIFT_DISABLED_EXPOSED').map((d) => d.message);
  }

  it('shows the enabled value in the file, not the one Forge wrote', async () => {
    const messages = await exposedAfter((text) => text.replace('enabled = false', 'enabled = true'));
    assert.deepEqual(messages, [
      `acme/kit:beta is disabled, but ${file()} has a changed Forge [[skills.config]] entry (path = ${JSON.stringify(beta())}, enabled = true; Forge expects path = ${JSON.stringify(beta())}, enabled = false)`,
    ]);
  });

  it('shows a key that was deleted as missing', async () => {
    const messages = await exposedAfter((text) => text.replace('enabled = false\n', ''));
    assert.deepEqual(messages, [
      `acme/kit:beta is disabled, but ${file()} has a changed Forge [[skills.config]] entry (path = ${JSON.stringify(beta())}, enabled = missing; Forge expects path = ${JSON.stringify(beta())}, enabled = false)`,
    ]);
  });
});
