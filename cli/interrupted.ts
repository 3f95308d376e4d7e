/**
 * Ctrl-C at a prompt (read as the byte ETX, since a prompt puts the terminal in raw mode and no
 * SIGINT is sent). It is not a usage error: the command ends with the status a shell reports for
 * a process Ctrl-C stopped, as during network waits, after its `finally` blocks have run.
 */
export class Interrupted extends Error {
  /** 128 + SIGINT */
  static readonly EXIT_CODE = 130;

  constructor(message: string) {
    super(message);
    this.name = 'Interrupted';
  }
}
