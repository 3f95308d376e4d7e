import { readFile } from 'node:fs/promises';
import { hasErrno } from '../errors/index.js';
import type { CanaryResult, DestinationStats, QueueSize } from './store.js';

/** What `sf observe status` shows: the running observer's counters, queues and canaries. */
export interface DestinationStatus extends DestinationStats {
  name: string;
  type: 'hub' | 'otlp' | 'file';
  queued: QueueSize;
  canary?: CanaryResult;
}

export interface ObserverStatus {
  pid: number;
  version: string;
  startedAt: string;
  updatedAt: string;
  /** receiver base URL, e.g. http://127.0.0.1:14318 */
  url: string;
  socket: string;
  /** 'fanout': built-in delivery to every destination; 'collector': everything goes to otelcol-contrib */
  mode: 'fanout' | 'collector';
  /** why collector mode was not used although enabled (fail-open fallback) */
  collectorProblem?: string;
  sessions: number;
  received: { logs: number; traces: number; metrics: number; pluginEvents: number; outbox: number; rejectedMessages: number; /** OTLP exports answered 429 (busy); the hosts send them again */ refusedExports?: number };
  normalized: { events: number; spans: number };
  /** normalization failures (a bug or an event that broke the convention); the input was dropped */
  errors: number;
  lastError?: string;
  destinations: DestinationStatus[];
}

/**
 * What is wrong with a destination now, or undefined. The canary runs every few minutes: a
 * delivery since it failed outranks it; an error since the last delivery, with records still
 * queued, is a destination failing now.
 */
export function destinationProblem(d: DestinationStatus): string | undefined {
  if (d.lastError !== undefined && d.queued.items > 0 && (d.lastErrorAt ?? 0) > (d.lastSuccessAt ?? 0)) return `fails to deliver: ${d.lastError}`;
  if (d.canary && !d.canary.ok && !((d.lastSuccessAt ?? 0) > d.canary.at)) return `fails its canary: ${d.canary.error ?? `HTTP ${d.canary.status}`}`;
  return undefined;
}

/** What a destination gave up, by reason (`queue_full 5, rejected 3`), once it dropped any record; `sf observe doctor` reports it as SF_OBSERVE_DROPPED. */
export function destinationDrops(d: DestinationStats): string | undefined {
  if (d.dropped <= 0) return undefined;
  return Object.entries(d.droppedBy).map(([reason, n]) => `${reason} ${n}`).join(', ') || 'reason unknown';
}

/** The state column of `sf observe status`: what is wrong now, else what was dropped, else `ok` once a canary ran. */
export function destinationState(d: DestinationStatus): string {
  const drops = destinationDrops(d);
  return destinationProblem(d) ?? (drops ? `SF_OBSERVE_DROPPED: ${drops}` : d.canary ? 'ok' : '-');
}

/** The last status the observer wrote ($SF_HOME/run/observe.status.json), or undefined. */
export async function readObserverStatus(statusFile: string): Promise<ObserverStatus | undefined> {
  try {
    return JSON.parse(await readFile(statusFile, 'utf8')) as ObserverStatus;
  } catch (e) {
    if (hasErrno(e, 'ENOENT') || e instanceof SyntaxError) return undefined;
    throw e;
  }
}
