/**
 * Test-only crash points. When the environment variable SF_CRASH_AT names the step being passed
 * (e.g. `install:after-store`), the process kills itself with SIGKILL right there, so tests can
 * prove that every step of a mutation leaves a recoverable state. A no-op otherwise.
 */
export function crashPoint(step: string, env: NodeJS.ProcessEnv = process.env): void {
  const wanted = env.SF_CRASH_AT;
  if (!wanted || wanted !== step) return;
  process.kill(process.pid, 'SIGKILL');
}
