/**
 * Start-up and phase tracing for performance work: with `SF_TRACE_STARTUP=1`, `trace(label)`
 * prints the milliseconds since the process started (performance.now() counts from there) and
 * the label on stderr. Without it, trace is a no-op.
 */
import { writeSync } from 'node:fs';

// written with write(2): creating process.stderr would itself show up in the trace
export const trace: (label: string) => void =
  process.env.SF_TRACE_STARTUP === '1' ? (label) => void writeSync(2, `[sf trace] ${performance.now().toFixed(1).padStart(7)} ms  ${label}\n`) : () => undefined;
