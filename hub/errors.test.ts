import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { Hono } from 'hono';
import { SfError } from '../core/errors/index.js';
import { onHubError } from './errors.js';

describe('hub error funnel', () => {
  const app = new Hono();
  app.onError(onHubError);
  app.get('/full', () => {
    writeFileSync('/dev/full', 'x'); // a real ENOSPC
    return new Response('unreachable');
  });
  app.get('/bug', () => {
    throw new TypeError('cannot read properties of undefined');
  });
  app.get('/limit', () => {
    throw new SfError('SF_E_LIMIT', 'too big', { hint: 'send less' });
  });

  it('answers a full disk with a retryable 503 and Retry-After, naming no server path', async () => {
    const res = await app.request('/full');
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '60');
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'SF_E_DISK_FULL');
    assert.doesNotMatch(JSON.stringify(body), /dev\/full|ENOSPC/);
  });

  it('keeps SfErrors on their registered status and bugs on a bare 500', async () => {
    assert.equal((await app.request('/limit')).status, 413);
    const original = console.error;
    console.error = () => undefined;
    try {
      const bug = await app.request('/bug');
      assert.equal(bug.status, 500);
      assert.deepEqual(await bug.json(), { error: { code: 'SF_E_INTERNAL', message: 'internal error' } });
    } finally {
      console.error = original;
    }
  });
});
