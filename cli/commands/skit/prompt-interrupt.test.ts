import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { sfBin } from '../../../test-support/index.js';
import { installSandbox, type InstallSandbox } from '../../../test-support/skit-install.js';

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
const hasScript = spawnSync('script', ['--version']).status === 0;

/**
 * Runs `sf args` on a real terminal (util-linux `script` gives it a pty) and types `keys` once
 * `prompt` is shown: the prompts only appear on a terminal, which puts Ctrl-C in as a byte (ETX).
 */
function onTerminal(args: string[], prompt: string, keys: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const line = [process.execPath, sfBin, ...args].map(quote).join(' ');
    const child = spawn('script', ['-qfec', line, '/dev/null'], { cwd: options.cwd, env: { ...process.env, ...options.env, NO_COLOR: '1', SHELL: '/bin/sh' }, stdio: ['pipe', 'pipe', 'ignore'] });
    let output = '';
    let typed = false;
    child.stdout.on('data', (d) => {
      output += d;
      if (!typed && output.includes(prompt)) {
        typed = true;
        child.stdin.write(keys);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('Ctrl-C at a prompt exits 130; answering no exits 0 (D7)', () => {
  let sb: InstallSandbox;
  before(function () {
    if (!hasScript) this.skip(); // no util-linux `script` to give sf a terminal
  });
  beforeEach(async () => (sb = await installSandbox('sf-prompt-')));
  afterEach(() => sb?.cleanup());

  it('sf add skit: Ctrl-C at "Proceed?" exits 130 and changes nothing, "n" exits 0', async () => {
    const args = ['add', 'skit', sb.source, '--agent', 'claude-code'];
    const ctrlC = await onTerminal(args, 'Proceed?', '\u0003', { cwd: sb.project, env: sb.env });
    assert.equal(ctrlC.code, 130, ctrlC.output);
    assert.match(ctrlC.output, /cancelled; nothing was changed/);
    assert.doesNotMatch(ctrlC.output, /SF_E_USAGE|error\[/);
    assert.deepEqual(await sb.list(), []);
    const no = await onTerminal(args, 'Proceed?', 'n\r', { cwd: sb.project, env: sb.env });
    assert.equal(no.code, 0, no.output);
    assert.deepEqual(await sb.list(), []);
  });

  it('sf login: Ctrl-C at the token prompt exits 130 and stores nothing', async () => {
    const r = await onTerminal(['login', '--hub', 'http://127.0.0.1:9'], 'token for', '\u0003', { cwd: sb.project, env: sb.env });
    assert.equal(r.code, 130, r.output);
    assert.doesNotMatch(r.output, /SF_E_USAGE|error\[/);
    const status = await sb.sf(['logout', '--hub', 'http://127.0.0.1:9']);
    assert.match(status.stdout + status.stderr, /not logged in/);
  });
});
