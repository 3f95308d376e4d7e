import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openEmbeddedStorage } from '../storage/embedded/lmdb-store.js';
import { rawBatchLoader } from './load-raw.js';
import type { FromThread, NormalizerThreadData, ToThread } from './thread-messages.js';
import { describeError, NormalizationWorker } from './worker.js';

/**
 * Worker-thread entry of the normalizer (started by threaded.ts): opens the hub's embedded
 * storage itself (LMDB shares the environment between threads) and runs the same
 * NormalizationWorker the hub runs in-process, so normalization uses the second core while the
 * HTTP thread admits, stores raw batches and builds the rows. Batches arrive normalized ahead
 * (prepared.ts) and stay serialized until their turn; a batch without them (after a restart) is
 * decoded from its raw bytes here.
 */
const data = workerData as NormalizerThreadData;
const port = parentPort!;
const storage = openEmbeddedStorage(data.dataDir);
const telemetry = storage.telemetry;
const post = (m: FromThread) => port.postMessage(m);

const worker = new NormalizationWorker(telemetry, {
  normalizerVersion: () => telemetry.projections.active()?.normalizerVersion ?? data.normalizerVersion,
  generation: () => telemetry.projections.active()?.generation ?? 1,
  load: rawBatchLoader(telemetry, data.limits),
  onError: (e) => post({ type: 'error', message: describeError(e) }),
  onDequeued: (item) => post({ type: 'dequeued', item }),
  auto: true,
  // the HTTP thread sends a batch's rows before committing its queue item, so a committed item's
  // rows are at least waiting in the port: take them now rather than decode the raw batch again
  pull() {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) receive(m.message as ToThread);
  },
});

port.on('message', receive);

function receive(m: ToThread): void {
  // the HTTP thread committed the batch (or the rebuild its generation): read past this thread's snapshot
  telemetry.freshReads();
  switch (m.type) {
    case 'batch':
      worker.handoffPrepared(m.accountId, m.batchId, m.prepared);
      return;
    case 'queued':
      worker.settled(m.accountId, m.batchId, m.stored);
      return;
    case 'kick':
      worker.kick();
      return;
    case 'resume':
      worker.resume();
      return;
    case 'drain':
      void worker.drain().then(() => post({ type: 'done', id: m.id }));
      return;
    case 'pause':
      void worker.pause().then(() => post({ type: 'done', id: m.id }));
      return;
    case 'stop':
      void worker
        .stop()
        .then(() => storage.close())
        .then(() => {
          post({ type: 'done', id: m.id });
          port.close();
        });
  }
}
