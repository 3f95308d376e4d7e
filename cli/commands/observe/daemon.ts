import { command, optional, string } from 'cmd-ts';
import { integer, option } from '../../args.js';
import { checkPort } from '../../../core/runtime/port.js';
import { resolve } from 'node:path';
import { err, out } from '../../output/print.js';

/**
 * Ends the process now. Not process.exit(): Node's exit joins the libuv thread pool, so a thread
 * stuck in a system call (a hung network mount) would hold the exit too; SIGTERM with its default
 * action ends the process whatever its threads do (and systemd counts it as a clean stop).
 */
function dieNow(): void {
  process.removeAllListeners('SIGTERM');
  process.kill(process.pid, 'SIGTERM');
}

/** How long a stop may take (flush, status file, closing the queue) before the process exits anyway. */
const SHUTDOWN_MS = 10_000;

/**
 * `sf observe daemon`: runs the observer in the foreground (what the generated systemd unit,
 * launchd plist and Windows task start). Stops cleanly on SIGINT/SIGTERM, flushing what it holds
 * into its persistent queue.
 */
export const observeDaemonCommand = command({
  name: 'daemon',
  description: 'Run the local observer in the foreground (one per user)',
  args: {
    sfHome: option({ long: 'sf-home', type: optional(string), description: 'state directory (default $SF_HOME or ~/.sf)' }),
    port: option({ long: 'port', type: optional(integer({ min: 0, max: 65535, what: 'a TCP port' })), description: 'OTLP/HTTP receiver port on 127.0.0.1 (default: observe.receiver.port, 14318; 0: any free port)' }),
  },
  handler: async ({ sfHome, port }) => {
    // 0: any free port (tests, and a second observer on one machine)
    if (port !== undefined) checkPort(port, '--port', true);
    if (sfHome) process.env.SF_HOME = resolve(sfHome);
    const { startObserver } = await import('../../../core/observer/service.js');
    const observer = await startObserver({ env: process.env, ...(port !== undefined ? { port } : {}) });
    // the handlers go in before the banner: whoever waits for 'listening on' may send SIGTERM at
    // once, and a signal with no handler yet would kill the process without its flush
    let deadline: NodeJS.Timeout | undefined;
    const stopped = new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        // a second signal ends the process at once, and so does a shutdown still busy after
        // SHUTDOWN_MS: what is queued stays queued for the next start
        const force = () => {
          err('sf observer: shutdown did not finish; exiting now (queued records stay queued for the next start)');
          dieNow();
        };
        process.once('SIGINT', force);
        process.once('SIGTERM', force);
        deadline = setTimeout(force, SHUTDOWN_MS);
        deadline.unref();
        observer.close().then(done, (e: unknown) => {
          err(`observer shutdown: ${(e as Error).message}`);
          done();
        });
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    const status = observer.status();
    out(`sf observer ${status.version} listening on ${observer.url} (socket ${observer.socketPath}, pid ${process.pid}, ${status.mode})`);
    if (status.collectorProblem) err(`otelcol-contrib not used: ${status.collectorProblem}; using the built-in fan-out`);
    await stopped;
    clearTimeout(deadline);
    out('sf observer stopped');
    // a file-system call that never returns (a write to a hung mount the observer gave up on)
    // keeps the event loop alive: it must not keep the process
    setTimeout(dieNow, 1000).unref();
  },
});
