import { fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * stdout and stderr, written with write(2) directly. Node's process.stdout for a pipe is a
 * net.Socket, and asking whether a stream is a TTY loads node:tty: either costs 3-6 ms of start-up
 * (net, stream and tty modules) in every command whose output goes to a pipe, as in scripts and
 * benchmarks. A descriptor that will not take a write (EAGAIN: a non-blocking pipe shared with the
 * parent) goes through Node's stream from then on, so the output stays in order. Once the reader
 * closed the pipe (`sf skit hash | head`) what is still written there is dropped quietly, and the
 * command ends with its own exit code: exiting at the broken pipe would report success for a
 * command that was about to fail (`set -o pipefail` scripts rely on it).
 */

export type Output = 'stdout' | 'stderr';

const FD: Record<Output, 1 | 2> = { stdout: 1, stderr: 2 };
/** outputs that went over to Node's stream (and stay there) */
const viaStream = new Set<Output>();

/** outputs whose reader went away: writes to them are dropped */
const gone = new Set<Output>();

const streamOf = (output: Output): NodeJS.WriteStream => {
  const stream = output === 'stdout' ? process.stdout : process.stderr;
  if (!viaStream.has(output)) {
    viaStream.add(output);
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') return void gone.add(output);
      throw e;
    });
  }
  return stream;
};

/** Writes `text` to `output` completely (or hands the rest to Node's stream, see above). */
export function write(output: Output, text: string): void {
  if (gone.has(output)) return;
  // Windows consoles need Node's stream, which writes UTF-16 to them
  if (viaStream.has(output) || process.platform === 'win32') {
    streamOf(output).write(text);
    return;
  }
  // the string itself first: encoding it in Node's C++ costs less than a Buffer made here
  // (~0.4 vs ~1 ms for `sf skit hash --json` of a large SKIT); only a partial write needs the bytes
  let bytes: Buffer | undefined;
  let done = 0;
  try {
    done = writeSync(FD[output], text);
    if (done === Buffer.byteLength(text)) return;
    bytes = Buffer.from(text, 'utf8');
    while (done < bytes.length) done += writeSync(FD[output], bytes, done);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return void gone.add(output);
    if (code !== 'EAGAIN') throw e;
  }
  streamOf(output).write((bytes ?? Buffer.from(text, 'utf8')).subarray(done));
}

/**
 * Calls `done` once everything written has reached the OS: at once unless an output went over to
 * Node's stream (a slow reader can leave data queued there).
 */
export function whenFlushed(done: () => void): void {
  const open = [...viaStream].filter((o) => !gone.has(o));
  let pending = open.length;
  if (pending === 0) return done();
  const one = () => {
    if (--pending === 0) done();
  };
  for (const output of open) streamOf(output).write('', one);
}

const terminal = new Map<number, boolean>();

/** Whether `output` is a terminal (see isTerminalFd). */
export const isTerminal = (output: Output): boolean => isTerminalFd(FD[output]);

/**
 * Whether file descriptor `fd` is a terminal, as tty.isatty answers. Pipes, files and sockets are
 * told apart by fstat without loading node:tty; so are Linux's memory devices (major 1: /dev/null,
 * /dev/zero, ...), which are character devices like terminals. Any other character device is
 * asked of tty.isatty.
 */
export function isTerminalFd(fd: number): boolean {
  let answer = terminal.get(fd);
  if (answer === undefined) {
    answer = checkTerminal(fd);
    terminal.set(fd, answer);
  }
  return answer;
}

function checkTerminal(fd: number): boolean {
  let st;
  try {
    st = fstatSync(fd);
  } catch {
    return false;
  }
  if (!st.isCharacterDevice()) return false;
  if (process.platform === 'linux' && Math.floor(st.rdev / 256) % 4096 === 1) return false;
  const tty = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return tty.isatty(fd);
}
