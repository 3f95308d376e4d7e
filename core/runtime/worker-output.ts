import { writeSync } from 'node:fs';
import type { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * Worker options that keep the worker's stdout and stderr to itself (`stdout/stderr: true`).
 * Without them Worker pipes the worker's output into process.stdout and process.stderr, which
 * creates both streams in this thread (net and tty for pipes: 1-2 ms of the command's start-up).
 * Pass the worker to forwardWorkerOutput so nothing it prints is lost.
 */
export const OWN_STDIO: Pick<WorkerOptions, 'stdout' | 'stderr'> = { stdout: true, stderr: true };

/** Copies what `worker` prints (a warning, say) to this process's stdout and stderr with write(2). */
export function forwardWorkerOutput(worker: Worker): Worker {
  worker.stdout.on('data', (d: Buffer) => writeAll(1, d));
  worker.stderr.on('data', (d: Buffer) => writeAll(2, d));
  return worker;
}

function writeAll(fd: 1 | 2, data: Buffer): void {
  try {
    for (let done = 0; done < data.length; ) done += writeSync(fd, data, done);
  } catch {
    // a closed or non-blocking pipe: the worker's own message is not worth failing the command over
  }
}
