import assert from 'node:assert/strict';
import { installSandbox, type InstallSandbox } from '../test-support/skit-install.js';

/**
 * Flags spelled alike across commands (D13): --agent and --agents both work where either did,
 * -y goes with every --yes, -o with --out; positionals say what they are; table headers are capitals.
 */
describe('consistent flag names across commands', () => {
  let sb: InstallSandbox;
  before(async () => (sb = await installSandbox('sf-flags-')));
  after(() => sb.cleanup());

  it('--agents works where --agent is the name, and the two together are refused', async () => {
    const add = await sb.sf(['add', 'skit', sb.source, '--agents', 'claude-code', '--yes', '--json']);
    assert.equal(add.code, 0, add.stderr);
    assert.deepEqual(JSON.parse(add.stdout).skit.targets.map((t: { agent: string }) => t.agent), ['claude-code']);
    const disable = await sb.sf(['skit', 'disable', 'acme/kit:lint', '--agents', 'claude-code']);
    assert.equal(disable.code, 0, disable.stderr);
    const evidence = await sb.sf(['forge', 'evidence', '--agents', 'claude-code', '--json']);
    assert.equal(JSON.parse(evidence.stdout).fields.host, 'claude-code');
    const both = await sb.sf(['skit', 'remove', 'acme/kit', '--agent', 'claude-code', '--agents', 'codex']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /error\[SF_E_USAGE\]: --agent claude-code and --agents codex given: they are the same option/);
    const remove = await sb.sf(['skit', 'remove', 'acme/kit', '--agents', 'claude-code', '--json']);
    assert.equal(remove.code, 0, remove.stderr);
    assert.deepEqual(JSON.parse(remove.stdout).agents, ['claude-code']);
  });

  it('sf observe takes --agent and -y; sf skit pull takes -o', async () => {
    const plan = await sb.sf(['observe', 'install', '--agent', 'claude-code', '--json']);
    assert.equal(plan.code, 0, plan.stderr);
    assert.deepEqual(JSON.parse(plan.stdout).plan.agents.map((a: { agent: string }) => a.agent), ['claude-code']);
    const uninstall = await sb.sf(['observe', 'uninstall', '-y', '--agent', 'claude-code']);
    assert.doesNotMatch(uninstall.stderr, /unknown option/);
    const pull = await sb.sf(['skit', 'pull', 'acme/kit', '-o', 'dir']);
    assert.doesNotMatch(pull.stderr, /unknown option/);
    assert.match(pull.stderr, /no Forge hub is configured/);
  });

  it('positionals describe themselves in --help, and table headers are capitals', async () => {
    for (const args of [['skit', 'hash'], ['skit', 'enable'], ['observe', 'link'], ['hub', 'admin', 'create-user']]) {
      const help = await sb.sf([...args, '--help']);
      assert.equal(help.code, 0);
      assert.doesNotMatch(help.stdout, /- a string/, args.join(' '));
    }
    // the alias's help names the other spelling, not itself
    assert.match((await sb.sf(['skit', 'enable', '--help'])).stdout, /--agents <str> +- the same as --agent \[/);
    assert.match((await sb.sf(['observe', 'install', '--help'])).stdout, /--agent <str> +- the same as --agents \[/);
    assert.equal((await sb.sf(['observe', 'destination', 'add', 'local', `file:${sb.root}/obs.jsonl`])).code, 0);
    const list = await sb.sf(['observe', 'destination', 'list']);
    assert.match(list.stdout, /^NAME +TYPE +TARGET$/m);
    const status = await sb.sf(['observe', 'status']);
    assert.match(status.stdout, /^DESTINATION +TARGET +QUEUED +DELIVERED/m);
  });
});
