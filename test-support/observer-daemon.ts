import { spawn, type ChildProcess } from 'node:child_process';
import { sfBin } from './index.js';

export interface RunningDaemon {
  child: ChildProcess;
  /** everything it printed so far, stdout and stderr together */
  output: () => string;
  exited: Promise<number | null>;
}

/** `sf observe daemon` of the built CLI on a free port, as a child process (tests of the real daemon); `env` overrides the test's environment (a sandbox HOME, PATH). */
export function startObserverDaemon(home: string, env: NodeJS.ProcessEnv = {}): RunningDaemon {
  let output = '';
  const child = spawn(process.execPath, [sfBin, 'observe', 'daemon', '--sf-home', home, '--port', '0'], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}
