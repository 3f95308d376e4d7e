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
    await refused(['hub', 'serve', '--port', 'abc'], /error\[SF_E_USAGE\]: --port "abc" is not a whole number \(digits only, 0-65535\) \(`sf hub serve`\)/, /hint: run `sf hub serve --help`/);
    await refused(['forge', 'fetch', '--issue', 'x'], /--issue "x" is not a whole number \(digits only, 1 or more\); No value provided for --api; No value provided for --repo \(`sf forge fetch`\)$/, /sf forge fetch --help/);
    await refused(['skit', 'remove', 'acme/kit', '--agent'], /: No value provided for --agent \(give one.*\) \(`sf skit remove`\)$/, /sf skit remove --help/);
  });

  it('an option given to `sf` or a family before its command is a usage error naming it, not an internal error (cliux D1, D2)', async () => {
    const commands = /the commands are: add, skit, hub, forge, observe, login, logout/;
    await refused(['-V'], /^error\[SF_E_USAGE\]: unknown option -V \(`sf`\)$/, /`sf` takes only --help \(-h\) and --version \(-v\) before a command/);
    await refused(['--bogus'], /^error\[SF_E_USAGE\]: unknown option --bogus \(`sf`\)$/, commands);
    await refused(['-x', 'skit', 'list'], /unknown option -x \(`sf`\)/, commands);
    await refused(['--version', 'skit'], /^error\[SF_E_USAGE\]: --version takes no other arguments \(`sf`\)$/, /run `sf --version` alone/);
    await refused(['skit', '--bogus'], /^error\[SF_E_USAGE\]: unknown option --bogus \(`sf skit`\)$/, /`sf skit` takes only --help \(-h\) before its command/);
    await refused(['skit', '--version'], /^error\[SF_E_USAGE\]: unknown option --version \(`sf skit`\)$/, /`sf --version` prints the version/);
    await refused(['observe', 'destination', '--bogus', 'list'], /unknown option --bogus \(`sf observe destination`\)/, /the commands are: add, list, remove/);
    const json = await sf(['--json']);
    assert.equal(json.code, 2);
    assert.equal(json.stdout, '');
    assert.deepEqual(JSON.parse(json.stderr).error.code, 'SF_E_USAGE');
    assert.match(JSON.parse(json.stderr).error.message, /^unknown option --json \(`sf`\)$/);
    for (const args of [['--version'], ['-v'], ['--help'], ['-h'], ['--help', 'skit'], ['skit', '-h']]) {
      const r = await sf(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, args.includes('skit') ? /sf skit <subcommand>/ : /^(\d+\.\d+\.\d+|sf <subcommand>)/, args.join(' '));
      assert.equal(r.stderr, '');
    }
  });

  it('-h in a cluster of short flags, or --help=true, shows the help of a command that has no subcommands (cliux D2)', async () => {
    for (const args of [['skit', 'list', '-xh'], ['add', 'skit', './x', '-yh'], ['skit', 'list', '--help=true'], ['observe', 'status', '-ah']]) {
      const r = await sf(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^sf ${args[0]} ${args[1]}\n`), args.join(' '));
      assert.doesNotMatch(r.stderr, /subcommand/);
    }
    const bare = await sf(['skit']);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /error\[SF_E_USAGE\]: a subcommand is missing/);
  });

  it('an option whose value is missing is not taken for a misspelling of its neighbour (cliux D2)', async () => {
    for (const name of ['--agent', '--agents']) {
      const r = await sf(['skit', 'remove', 'acme/kit', name]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`No value provided for ${name} `));
      assert.doesNotMatch(r.stderr, /did you mean/, name);
    }
  });

  it('a numeric option takes digits only, and the error quotes what was typed (cliux D3)', async () => {
    // nothing listens on port 1: a command that got past parsing would fail to connect instead
    const fetch = ['forge', 'fetch', '--api', 'http://127.0.0.1:1', '--repo', 'a/b'];
    await refused([...fetch, '--issue', '5abc'], /^error\[SF_E_USAGE\]: --issue "5abc" is not a whole number \(digits only, 1 or more\) \(`sf forge fetch`\)$/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '1e2'], /--issue "1e2" is not a whole number/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '0x10'], /--issue "0x10" is not a whole number/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '0'], /--issue "0" is out of range \(1 or more\)/, /sf forge fetch --help/);
    await refused([...fetch, '--merge-request=7x'], /--merge-request "7x" is not a whole number/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '5', '--per-page', '7xyz'], /--per-page "7xyz" is not a whole number \(digits only, 1-100\)/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '5', '--per-page', '101'], /--per-page "101" is out of range \(1-100\)/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '5', '--max-wait', '0.5'], /--max-wait "0.5" is not a whole number/, /sf forge fetch --help/);
    await refused([...fetch, '--issue', '5', '--max-pages', '-1'], /--max-pages "-1" is not a whole number/, /sf forge fetch --help/);
    await refused(['hub', 'serve', '--port', '8080abc'], /--port "8080abc" is not a whole number/, /sf hub serve --help/);
    await refused(['observe', 'daemon', '--port', '8080abc'], /--port "8080abc" is not a whole number/, /sf observe daemon --help/);
    await refused(['observe', 'install', '--port', '8080abc'], /--port "8080abc" is not a whole number/, /sf observe install --help/);
    await refused(['observe', 'install', '--port', '0'], /--port "0" is not a TCP port \(1-65535\)/, /sf observe install --help/);
    await refused(['observe', 'destination', 'add', 'capped', 'file:capped.jsonl', '--max-megabytes', '1e2'], /--max-megabytes "1e2" is not a whole number \(digits only, 1-1048576\)/, /sf observe destination add --help/);
  });

  it('a flag or option given twice says so in sf\'s words, and to give it once (cliux observation 1)', async () => {
    await refused(['skit', 'list', '--local', '--local'], /^error\[SF_E_USAGE\]: --local given 2 times \(`sf skit list`\)$/, /hint: give each option once/);
    const json = await sf(['skit', 'list', '--json', '--json']);
    assert.match(JSON.parse(json.stderr).error.message, /^--json given 2 times/);
    await refused(['skit', 'remove', 'acme/kit', '--agent', 'a', '--agent', 'b'], /^error\[SF_E_USAGE\]: --agent given 2 times \(`sf skit remove`\)$/, /hint: give each option once/);
  });

  it('an error whose message names its file does not repeat the path after it (cliux observation 11)', async () => {
    const r = await sf(['forge', 'check', '-', '--labels', 'nope.json']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /^error\[SF_E_NOT_FOUND\]: labels file nope\.json does not exist\n/);
  });

  it('--json after `--` is an argument, not a request for JSON errors (cliux observation 3)', async () => {
    const r = await sf(['skit', 'validate', '--', '--json']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^error\[SF_E_NOT_FOUND\]: .*--json does not exist/);
  });

  it('the hint names the whole command path, three words deep too (D11)', async () => {
    await refused(['observe', 'destination', 'list', '--bogus'], /unknown option --bogus \(`sf observe destination list`\)/, /run `sf observe destination list --help`/);
    await refused(['hub', 'admin', 'create-user', '--bogus'], /`sf hub admin create-user`/, /run `sf hub admin create-user --help`/);
    await refused(['observe', 'destination', 'add', 'o1', 'otlp:http://127.0.0.1:4318', '--protocol', 'bogus'], /--protocol bogus: invalid value/, /run `sf observe destination add --help`/);
  });
});
