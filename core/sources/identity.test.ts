import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { canonicalUrl, fingerprintOf, gitIdentityKey, provisionalIdOf, urlIdentityKey } from './identity.js';
import { parseGitSource, looksLikeGit } from './git-spec.js';
import { redactText, redactUrl } from './redact.js';
import { isSfError } from '../errors/index.js';

describe('core/sources identity', () => {
  it('canonicalizes URLs: lowercase scheme/host, default port dropped, no credentials, query or fragment', () => {
    assert.equal(canonicalUrl('HTTPS://bob:pw@Example.COM:443/a/SKILL.md?token=x#frag'), 'https://example.com/a/SKILL.md');
    assert.equal(canonicalUrl('http://example.com:8080/x'), 'http://example.com:8080/x');
    assert.equal(canonicalUrl('ssh://git@Host.Example:22/r.git', { keepUser: true }), 'ssh://git@host.example/r.git');
  });

  it('keeps the query of a download URL, minus the parameters that carry a credential', () => {
    assert.equal(canonicalUrl('https://h.example/download?f=kit.tgz&token=s3cr3t&X-Amz-Signature=abc&v=2', { keepQuery: true }), 'https://h.example/download?f=kit.tgz&v=2');
    assert.notEqual(canonicalUrl('https://h.example/download?f=a.tgz', { keepQuery: true }), canonicalUrl('https://h.example/download?f=b.tgz', { keepQuery: true }));
    // the identity leaves the query out (ARCHITECTURE.md)
    assert.equal(urlIdentityKey('https://h.example/download?f=a.tgz'), 'https://h.example/download');
    assert.equal(canonicalUrl('https://h.example/kit.tgz?access_token=x', { keepQuery: true }), 'https://h.example/kit.tgz');
  });

  it('folds spellings of one git source into one identity key', () => {
    const keys = [
      'https://h.example/team/kit.git',
      'git+https://h.example/team/kit',
      'https://h.example/team/kit.git/',
    ].map((u) => parseGitSource(u).identityKey);
    assert.deepEqual(new Set(keys).size, 1, keys.join(' | '));
    assert.equal(keys[0], 'git+https://h.example/team/kit');
    assert.equal(gitIdentityKey('git@H.example:team/kit.git'), gitIdentityKey('ssh://git@h.example/team/kit'));
  });

  it('keeps file:///x and file:///x.git apart: on disk they are two repositories', () => {
    assert.notEqual(gitIdentityKey('file:///srv/repo'), gitIdentityKey('file:///srv/repo.git'));
    assert.equal(gitIdentityKey('file:///srv/repo/'), gitIdentityKey('file:///srv/repo'));
  });

  it('puts ref and subpath in the identity, so different refs are different sources', () => {
    const a = parseGitSource('https://h/x.git#main:skills/a');
    const b = parseGitSource('https://h/x.git#main');
    const c = parseGitSource('https://h/x.git#:skills/a');
    assert.equal(a.canonical, 'https://h/x.git#main:skills/a');
    assert.equal(c.ref, undefined);
    assert.equal(c.subpath, 'skills/a');
    assert.equal(new Set([a.identityKey, b.identityKey, c.identityKey]).size, 3);
  });

  it('fingerprint is sha256 of the identity key; the provisional id keeps its first 16 hex', () => {
    const fp = fingerprintOf('git+https://h/x');
    assert.equal(fp, createHash('sha256').update('git+https://h/x').digest('hex'));
    assert.equal(provisionalIdOf(fp), `provisional/${fp.slice(0, 16)}`);
  });

  it('never keeps http credentials in the canonical git source', () => {
    const spec = parseGitSource('https://bob:s3cret-token@h.example/x.git#v1');
    assert.equal(spec.canonical, 'https://h.example/x.git#v1');
    assert.ok(spec.cloneUrl.includes('s3cret-token'), 'the clone URL keeps them for use in memory');
    assert.ok(!spec.identityKey.includes('s3cret'));
  });

  it('rejects unsafe refs and subpaths, and a ref that disagrees with --version', () => {
    assert.throws(() => parseGitSource('https://h/x.git#--upload-pack=evil'), (e) => isSfError(e, 'SF_E_SOURCE'));
    assert.throws(() => parseGitSource('https://h/x.git#main:../up'), (e) => isSfError(e, 'SF_E_UNSAFE_PATH'));
    assert.throws(() => parseGitSource('https://h/x.git#main', 'v2'), (e) => isSfError(e, 'SF_E_USAGE'));
    assert.equal(parseGitSource('https://h/x.git', 'v2').ref, 'v2');
  });

  it('recognizes git syntax only, never shorthand or tree URLs', () => {
    for (const yes of ['https://h/x.git', 'git+https://h/x', 'ssh://h/x', 'git@h:x/y.git', 'file:///srv/x.git#main:a']) {
      assert.ok(looksLikeGit(yes), yes);
    }
    for (const no of ['owner/name', 'https://github.com/o/r/tree/main/skills', 'https://h/x.tgz', 'ext::sh -c x', '-x@h:y']) {
      assert.ok(!looksLikeGit(no), no);
    }
  });

  it('redacts userinfo, secret query parameters and literal secrets', () => {
    assert.equal(redactText('fatal: https://bob:pw@h/x.git 403'), 'fatal: https://***@h/x.git 403');
    assert.equal(redactText('GET https://h/a?access_token=abc&x=1'), 'GET https://h/a?access_token=***&x=1');
    assert.equal(redactText('token tok-12345 leaked', ['tok-12345']), 'token *** leaked');
    assert.equal(redactText('ssh://git@h/x and ssh://git:pw@h/x and https://tok@h/x'), 'ssh://git@h/x and ssh://***@h/x and https://***@h/x');
    // passwords that break URL syntax, and scp-like sources, are masked too
    assert.equal(redactText('http://user:se/cret@127.0.0.1:1/r.git is not a valid git URL'), 'http://***@127.0.0.1:1/r.git is not a valid git URL');
    assert.equal(redactText('"http://user:pa?ss@h/r.git"'), '"http://***@h/r.git"');
    assert.equal(redactText('source user:secret@127.0.0.1:x.git is odd'), 'source user:***@127.0.0.1:x.git is odd');
    assert.equal(redactText('git@github.example:o/r.git'), 'git@github.example:o/r.git');
    // no scheme and no scp colon after the host: still a password, whatever follows the host
    assert.equal(redactText('"x-access-token:ghp_s3cr3tTOKEN@github.com/acme/kit" is not a path'), '"x-access-token:***@github.com/acme/kit" is not a path');
    assert.equal(redactText('"alice:s3cr3t-pw@git.example.com/team/kit.git#main"'), '"alice:***@git.example.com/team/kit.git#main"');
    assert.equal(redactText('alice:p@ss/w0rd@git.example.com/kit'), 'alice:***@git.example.com/kit');
    assert.equal(redactText('--source=bob:tok3n@h/kit failed'), '--source=bob:***@h/kit failed');
    // what is not userinfo stays
    assert.equal(redactText('error: bob@h/kit: not found (see https://h/x:1)'), 'error: bob@h/kit: not found (see https://h/x:1)');
    assert.equal(redactUrl('https://u:p@h/a.tgz?sig=1#x'), 'https://h/a.tgz?…');
    // a 4 KB token is masked whole, and a scheme inside a longer word still counts ('xhttps://...')
    const jwt = 'e'.repeat(4096);
    assert.equal(redactText(`clone https://x:${jwt}@h/r.git`), 'clone https://***@h/r.git');
  });

  it('redacts in linear time: a 200,000-character argument is no CPU trap', () => {
    for (const text of ['a'.repeat(200_000), `http://${'a:'.repeat(100_000)}`, `${'a'.repeat(100_000)} https://u:p@h/x`]) {
      const start = process.hrtime.bigint();
      redactText(text);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      // quadratic matching took seconds at 32,000 characters; linear takes a few ms at 200,000
      assert.ok(ms < 1000, `${text.slice(0, 20)}...: ${ms.toFixed(0)} ms`);
    }
    assert.ok(redactText(`${'a'.repeat(100_000)} https://u:p@h/x`).endsWith(' https://***@h/x'));
  });
});
