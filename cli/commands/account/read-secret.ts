import { Interrupted } from '../../interrupted.js';

/**
 * Reads a secret: from a terminal without echo (raw mode, nothing printed but the prompt), or
 * from piped stdin (everything up to EOF, trimmed). Never logs or echoes what it read.
 */
export async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (data: Buffer) => {
        for (const ch of data.toString('utf8')) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            stdin.off('data', onData);
            process.stderr.write('\n');
            return resolve(value.trim());
          }
          if (ch === '\u0003') {
            stdin.off('data', onData);
            process.stderr.write('\n');
            return reject(new Interrupted('cancelled; nothing was changed'));
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}
