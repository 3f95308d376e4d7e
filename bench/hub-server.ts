import { spawn, type ChildProcess } from 'node:child_process';
import { cleanEnv, sfBin } from './support.js';

/** A child process that prints a line with its URL or port once it listens; stopped with SIGTERM. */
export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
}

/** Spawns `args` with node and waits (bounded) for a stdout line matching `ready`, whose group 1 is the URL. */
export function startServer(args: string[], ready: RegExp, toUrl: (m: RegExpExecArray) => string, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, args, { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errText = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${args.join(' ')}\n${errText}`));
    }, 20_000);
    child.stderr!.on('data', (d) => (errText += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = ready.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: toUrl(m),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.on('error', reject);
  });
}

/** `sf hub serve` on a free port over `dataDir`. */
export function startSfHub(dataDir: string, sfHome: string): Promise<ServerProcess> {
  return startServer([sfBin, 'hub', 'serve', '--port', '0', '--data', dataDir], /listening on (http:\/\/[^\s]+)/, (m) => m[1], { SF_HOME: sfHome });
}
