import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturesDir } from '../../../test-support/index.js';
import { observationsFromEvents, type ObservedEvent } from './from-observations.js';

const capture = (run: string): ObservedEvent[] => JSON.parse(readFileSync(join(fixturesDir, 'host-otlp', run, 'normalized.json'), 'utf8')).events;

describe('FORGE:SKIT_EVIDENCE active skills from normalized observations', () => {
  it('counts a loaded activation with its content hash, fidelity and source (real Claude Code capture)', () => {
    const [obs, ...rest] = observationsFromEvents(capture('claude-tool-details'));
    assert.deepEqual(rest, []);
    assert.equal(obs.skillId, 'acme/greetings:hello-skill');
    assert.match(obs.contentHash ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.equal(obs.fidelity, 'exact');
    assert.equal(obs.source, 'native_otel');
    assert.equal(obs.activations, 1);
  });

  it('keeps the fidelity the load was observed with (Codex derives the load from a metric)', () => {
    const obs = observationsFromEvents(capture('codex-explicit'));
    assert.deepEqual(obs.map((o) => [o.skillId, o.fidelity]), [['acme/greetings:hello-skill', 'derived']]);
  });

  it('reports nothing for a disabled skill, a selection that never loaded, or events outside the window', () => {
    assert.deepEqual(observationsFromEvents(capture('claude-override-off')), []);
    const selectedOnly = capture('claude-tool-details').filter((e) => e.event_name !== 'agent.skill.loaded');
    assert.deepEqual(observationsFromEvents(selectedOnly), []);
    const events = capture('claude-tool-details');
    assert.deepEqual(observationsFromEvents(events, { sinceMs: Date.parse('2999-01-01T00:00:00Z') }), []);
    assert.deepEqual(observationsFromEvents(events, { session: 'another-session' }), []);
  });

  it('compares the window as instants, whatever zone the time was written in', () => {
    const events = capture('claude-tool-details');
    const loadedAt = Date.parse(events.find((e) => e.event_name === 'agent.skill.loaded')!.timestamp!);
    // one second after the load, written as the same instant in UTC+14 (sorts before it as text)
    const after = new Date(loadedAt + 1000 + 14 * 3600_000).toISOString().replace('Z', '+14:00');
    assert.deepEqual(observationsFromEvents(events, { sinceMs: Date.parse(after) }), []);
    assert.equal(observationsFromEvents(events, { sinceMs: loadedAt - 1000 }).length, 1);
  });

  it('counts distinct activations, not repeated deliveries of the same load', () => {
    const loaded = capture('claude-tool-details').filter((e) => e.event_name === 'agent.skill.loaded');
    const second = { ...loaded[0], attributes: { ...loaded[0].attributes, 'agent.skill.activation.id': 'act_second' } };
    assert.equal(observationsFromEvents([...loaded, ...loaded, second])[0].activations, 2);
  });
});
