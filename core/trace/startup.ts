/**
 * Start-up and phase tracing for performance work: with `SF_TRACE_STARTUP=1`, `trace(label)`
 * prints the milliseconds since the process started (performance.now() counts from there) and
 * the label on stderr. Without it, trace is a no-op.
 */
export const trace: (label: string) => void =
  process.env.SF_TRACE_STARTUP === '1' ? (label) => process.stderr.write(`[sf trace] ${performance.now().toFixed(1).padStart(7)} ms  ${label}\n`) : () => undefined;
