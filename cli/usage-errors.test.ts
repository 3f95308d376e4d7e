import assert from 'node:assert/strict';
import { runSf, tempDir } from '../test-support/index.js';

/** Refusals of a command line name the word refused, the command, and what was probably meant. */
describe('sf usage errors name what was refused', () => {
  let home: { path: string; cleanup: () => Promise<void> };
  before(async () => (home = await tempDir('sf-usage-')));
  after(() => home.cleanup());
  const sf = (args: string[]) => runSf(args, { cwd: home.path, env: { HOME: home.path, SF_HOME: `${home.path}/.sf` } });

  const refused = async (args: string[], message: RegExp, hint: RegExp) => {
    const r = await sf(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    const [first, second] = r.stderr.split('\n');
    assert.match(first, message, args.join(' '));
    assert.match(second, hint, args.join(' '));
    // --json before the first option: after an option without its value it would be that value
    const at = args.findIndex((a) => a.startsWith('-'));
    const json = await sf(at < 0 ? [...args, '--json'] : [...args.slice(0, at), '--json', ...args.slice(at)]);
    assert.equal(json.code, 2);
    assert.equal(JSON.parse(json.stderr).error.code, 'SF_E_USAGE');
  };

  it('an unknown option is named, with the closest option of that command (D8)', async () => {
    await refused(['skit', 'list', '--jsn'], /^error\[SF_E_USAGE\]: unknown option --jsn \(`sf skit list`\)$/, /hint: did you mean --json\? run `sf skit list --help`/);
    await refused(['skit', 'pull', 'alice/akit', '--ot', 'dir'], /unknown option --ot \(`sf skit pull`\)/, /did you mean --out\?/);
    await refused(['skit', 'list', '-j'], /unknown option -j \(`sf skit list`\)/, /did you mean --json\?/);
    await refused(['skit', 'list', 'extra'], /unexpected argument "extra" \(`sf skit list`\)/, /hint: run `sf skit list --help`/);
  });

  it('a bad value names the option and the value, without list numbering (D8)', async () => {
    await refused(['hub', 'serve', '--port', 'abc'], /error\[SF_E_USAGE\]: --port abc: not a number \(`sf hub serve`\)/, /hint: run `sf hub serve --help`/);
    await refused(['forge', 'fetch', '--issue', 'x'], /--issue x: not a number; No value provided for --api; No value provided for --repo \(`sf forge fetch`\)$/, /sf forge fetch --help/);
    await refused(['skit', 'remove', 'acme/kit', '--agent'], /: No value provided for --agent \(give one.*\) \(`sf skit remove`\)$/, /sf skit remove --help/);
  });

  it('the hint names the whole command path, three words deep too (D11)', async () => {
    await refused(['observe', 'destination', 'list', '--bogus'], /unknown option --bogus \(`sf observe destination list`\)/, /run `sf observe destination list --help`/);
    await refused(['hub', 'admin', 'create-user', '--bogus'], /`sf hub admin create-user`/, /run `sf hub admin create-user --help`/);
    await refused(['observe', 'destination', 'add', 'o1', 'otlp:http://127.0.0.1:4318', '--protocol', 'bogus'], /--protocol bogus: invalid value/, /run `sf observe destination add --help`/);
  });
});
