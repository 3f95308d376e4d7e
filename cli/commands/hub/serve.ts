import { command, optional, string } from 'cmd-ts';
import { integer, option } from '../../args.js';
import { resolve } from 'node:path';
import { out } from '../../output/print.js';
import { defaultHubDataDir } from './data-dir.js';

export const hubServeCommand = command({
  name: 'serve',
  description: 'Run the Forge hub (registry + OTLP ingest) with embedded storage, on http://127.0.0.1:7357 unless told otherwise',
  args: {
    port: option({ long: 'port', type: integer({ min: 0, max: 65535, what: 'a TCP port' }), defaultValue: () => 7357, description: 'TCP port (default 7357; 0 = any free port)' }),
    host: option({ long: 'host', type: string, defaultValue: () => '127.0.0.1', description: 'address to bind (default 127.0.0.1: this machine only; e.g. 0.0.0.0 for every interface, behind a TLS proxy)' }),
    data: option({ long: 'data', type: optional(string), description: 'data directory (default $SF_HOME/hub)' }),
    baseUrl: option({ long: 'base-url', type: optional(string), description: 'public URL used in links, e.g. https://hub.example.com behind a TLS proxy (default: the request origin)' }),
  },
  handler: async ({ port, host, data, baseUrl }) => {
    const { startHub } = await import('../../../hub/serve.js');
    const hub = await startHub({ dataDir: resolve(data ?? defaultHubDataDir()), port, host, baseUrl });
    // the handlers go in before the banner: whoever waits for 'listening on' may send SIGTERM at
    // once, and a signal with no handler yet would kill the hub without closing its storage
    const stopped = new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        hub.close().then(done, done);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    out(`forge hub listening on ${hub.url} (data: ${resolve(data ?? defaultHubDataDir())})`);
    await stopped;
    out('forge hub stopped');
  },
});
