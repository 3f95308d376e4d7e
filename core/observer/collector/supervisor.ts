import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Runs otelcol-contrib as a child of the observer and restarts it with exponential backoff when
 * it exits (1 s doubling to 60 s; reset after a minute of uptime). Its output goes to a log file.
 * Stopping sends SIGTERM, then SIGKILL after a grace period.
 */

export interface CollectorProcess {
  /** times the collector was (re)started */
  readonly starts: number;
  readonly running: boolean;
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
  graceMs?: number;
}

export async function superviseCollector(opts: SuperviseOptions): Promise<CollectorProcess> {
  await mkdir(dirname(opts.logFile), { recursive: true });
  const log = createWriteStream(opts.logFile, { flags: 'a', mode: 0o600 });
  let child: ChildProcess | undefined;
  let stopping = false;
  let starts = 0;
  let delay = 1000;
  let restartTimer: NodeJS.Timeout | undefined;
  const launch = () => {
    if (stopping) return;
    starts++;
    const startedAt = Date.now();
    child = spawn(opts.binary, opts.args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.on('error', (e) => log.write(`[sf] could not start ${opts.binary}: ${e.message}\n`));
    child.on('exit', (code, signal) => {
      child = undefined;
      if (stopping) return;
      log.write(`[sf] otelcol-contrib exited (${signal ?? code}); restarting in ${delay} ms\n`);
      if (Date.now() - startedAt > 60_000) delay = 1000;
      restartTimer = setTimeout(launch, delay);
      delay = Math.min(delay * 2, 60_000);
    });
  };
  launch();
  return {
    get starts() {
      return starts;
    },
    get running() {
      return child !== undefined;
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const c = child;
      if (c && c.exitCode === null) {
        await new Promise<void>((resolve) => {
          const kill = setTimeout(() => c.kill('SIGKILL'), opts.graceMs ?? 5000);
          c.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          c.kill('SIGTERM');
        });
      }
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
}
