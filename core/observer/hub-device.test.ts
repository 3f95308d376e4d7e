import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isSfError } from '../errors/index.js';
import { tempDir } from '../../test-support/index.js';
import { createDeviceCredential } from './hub-device.js';

/** A server on 127.0.0.1 answering every request with `status` and `body` as JSON content. */
async function answering(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('observer: device credential from the hub', () => {
  it('an answer that is not JSON, or has no token and id, is SF_E_FETCH naming the hub and path, and nothing is stored', async () => {
    const tmp = await tempDir('sf-hub-device-');
    try {
      for (const body of ['<html>proxy error</html>', '{"ok":true}', '{"token":7,"id":"x"}']) {
        const { url, server } = await answering(200, body);
        try {
          await assert.rejects(createDeviceCredential(tmp.path, 'forge', { url, token: 'sfp_test' }), (e: unknown) => isSfError(e, 'SF_E_FETCH') && e.message.includes('/api/v1/tokens') && Boolean(e.hint));
        } finally {
          server.close();
        }
      }
      const good = await answering(201, '{"token":"sfd_x","id":"tok_1"}');
      try {
        const stored = await createDeviceCredential(tmp.path, 'forge', { url: good.url, token: 'sfp_test' });
        assert.equal(stored.id, 'tok_1', 'a well-formed answer is taken');
      } finally {
        good.server.close();
      }
    } finally {
      await tmp.cleanup();
    }
  });
});
