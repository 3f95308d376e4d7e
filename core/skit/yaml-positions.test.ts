import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineCounter } from 'yaml';
import { lineIndexOf } from './yaml-positions.js';

describe('lineIndexOf', () => {
  it('places every offset exactly as the yaml library\'s LineCounter does when it counts the same text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', ' ', '\n', '\r\n', 'key: v'), { maxLength: 40 }), fc.nat(300), (parts, at) => {
        const text = parts.join('');
        const counter = new LineCounter();
        counter.addNewLine(0);
        for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) counter.addNewLine(i + 1);
        const offset = at % (text.length + 2);
        assert.deepEqual(lineIndexOf(text).linePos(offset), counter.linePos(offset), JSON.stringify({ text, offset }));
      }),
      { numRuns: 500 },
    );
  });
});
