import { command, flag, optional, positional, string } from 'cmd-ts';
import { option } from '../../args.js';
import { SfError } from '../../../core/errors/index.js';
import { out, printJson } from '../../output/print.js';
import { readJson } from './input.js';

export const renderCommand = command({
  name: 'render',
  description: 'Render a FORGE annotation from structured JSON data (the exact template, sentinel last)',
  args: {
    type: positional({ type: string, displayName: 'TYPE', description: 'e.g. INVESTIGATOR, BUILDER, FORGE:TRAJECTORY, GATE_FAILED' }),
    data: option({ long: 'data', type: optional(string), description: 'JSON file with the fields (- for stdin); not needed for markers' }),
    partial: flag({ long: 'partial', description: 'end with the partial sentinel (CONTEXT, ARCHITECT: the time-limited completion sentinel of spec 4.1); required fields may be missing' }),
    json: flag({ long: 'json', description: 'print {"body": markdown}, ready to POST as a comment' }),
  },
  handler: async ({ type, data, partial, json }) => {
    const { normalizeTypeName, renderAnnotation, templateFor, typeInfo } = await import('../../../core/annotations/index.js');
    const name = normalizeTypeName(type);
    if (!name) throw new SfError('SF_E_USAGE', `"${type}" is not an annotation type name`, { hint: 'use an upper-case TYPE such as INVESTIGATOR' });
    // an unknown type is the first thing to hear about: no --data can make it renderable
    if (!typeInfo(name) && !templateFor(name)) renderAnnotation(name, {});
    if (data === undefined && typeInfo(name)?.form !== 'marker') {
      throw new SfError('SF_E_USAGE', `FORGE:${name} needs --data`, { hint: `pass --data fields.json (see docs/forge-annotations.md for the keys of FORGE:${name})` });
    }
    const fields = data === undefined ? {} : await readJson(data, 'data');
    const body = renderAnnotation(name, fields, { partial });
    if (json) printJson({ body });
    else out(body);
  },
});
