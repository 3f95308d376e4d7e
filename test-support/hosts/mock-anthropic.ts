import type { ServerResponse } from 'node:http';
import { sendJson, startMockServer, type MockServer } from './mock-server.js';

/**
 * Mock Anthropic Messages API for offline Claude Code runs (adapted from
 * shared/research/hosts/mock-anthropic.mjs). While the conversation has fewer tool results than
 * `skills`, the model asks the `Skill` tool for the next skill in `skills`; then it ends the turn.
 * So one run tries to load every listed skill, in order, and the log shows what the host answered.
 */
export function startMockAnthropic(skills: string[]): Promise<MockServer> {
  let n = 0;
  return startMockServer(({ method, path, body }, res) => {
    if (path.endsWith('/v1/messages/count_tokens')) return sendJson(res, 200, { input_tokens: 42 }), 'count_tokens';
    if (method === 'POST' && path.endsWith('/v1/messages')) {
      const plan = planTurn(body, skills);
      reply(res, body, plan, ++n);
      return plan;
    }
    sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'mock: not found' } });
    return '404';
  });
}

type Plan = { kind: 'tool_use'; skill: string } | { kind: 'text'; text: string };

function toolResults(body: any): number {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return msgs.reduce((sum, m) => sum + (Array.isArray(m.content) ? m.content.filter((c: any) => c?.type === 'tool_result').length : 0), 0);
}

function planTurn(body: any, skills: string[]): Plan {
  const offersSkill = Array.isArray(body?.tools) && body.tools.some((t: any) => t?.name === 'Skill');
  const done = toolResults(body);
  if (offersSkill && done < skills.length) return { kind: 'tool_use', skill: skills[done] };
  return { kind: 'text', text: 'OK' };
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function reply(res: ServerResponse, body: any, plan: Plan, n: number): void {
  const model = body?.model ?? 'claude-sonnet-4-5';
  const usage = { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block = plan.kind === 'tool_use'
    ? { type: 'tool_use', id: `toolu_mock_${n}`, name: 'Skill', input: { skill: plan.skill } }
    : { type: 'text', text: plan.text };
  const stop = plan.kind === 'tool_use' ? 'tool_use' : 'end_turn';
  if (!body?.stream) {
    sendJson(res, 200, { id: `msg_mock_${n}`, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, stop_sequence: null, usage });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', { type: 'message_start', message: { id: `msg_mock_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } });
  if (plan.kind === 'tool_use') {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ skill: plan.skill }) } });
  } else {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: plan.text } });
  }
  sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}
