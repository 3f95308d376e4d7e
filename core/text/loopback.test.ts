import assert from 'node:assert/strict';
import { isLoopbackHost } from './loopback.js';

describe('isLoopbackHost', () => {
  it('knows this machine by name and address, and nothing else', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['', 'localhost.example.com', '127.0.0.1.nip.io', '128.0.0.1', '[::2]', '0.0.0.0', 'hub.example.com']) assert.equal(isLoopbackHost(h), false, h);
  });
});
