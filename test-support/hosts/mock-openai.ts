import type { ServerResponse } from 'node:http';
import { sendJson, startMockServer, type MockServer } from './mock-server.js';

/**
 * Mock OpenAI-style model server for offline Codex (Responses API) and OpenCode (Chat Completions
 * through @ai-sdk/openai-compatible) runs, adapted from shared/research/hosts/mock-openai.mjs.
 * Chat Completions: while fewer tool results than `skills` are in the conversation and a `skill`
 * tool is offered, the model calls `skill {name}` for the next one; then it answers text.
 * Responses API: always answers text (Codex skill use is driven by `$name` mentions in the prompt).
 */
export function startMockOpenAI(skills: string[]): Promise<MockServer> {
  let n = 0;
  return startMockServer(({ method, path, body }, res) => {
    if (method === 'POST' && path.endsWith('/responses')) {
      responsesStream(res, body, `Done.`, ++n);
      return { text: 'Done.' };
    }
    if (method === 'POST' && path.endsWith('/chat/completions')) {
      const plan = chatPlan(body, skills);
      chatStream(res, body, plan, ++n);
      return plan;
    }
    if (path.endsWith('/models')) {
      sendJson(res, 200, { object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'mock' }], models: [] });
      return 'models';
    }
    sendJson(res, 404, { error: { message: 'mock: not found', type: 'not_found' } });
    return '404';
  });
}

type ChatPlan = { call: { name: string; arguments: Record<string, unknown> } } | { text: string };

function chatPlan(body: any, skills: string[]): ChatPlan {
  const done = (body?.messages ?? []).filter((m: any) => m?.role === 'tool').length;
  const offered = (body?.tools ?? []).some((t: any) => (t?.function?.name ?? t?.name) === 'skill');
  if (offered && done < skills.length) return { call: { name: 'skill', arguments: { name: skills[done] } } };
  return { text: 'Done.' };
}

function chatStream(res: ServerResponse, body: any, plan: ChatPlan, n: number): void {
  const base = { id: `chatcmpl-mock-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'mock' };
  const w = (o: unknown) => res.write(`data: ${JSON.stringify({ ...base, ...(o as object) })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if ('call' in plan) {
    w({ choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_mock_${n}`, type: 'function', function: { name: plan.call.name, arguments: '' } }] }, finish_reason: null }] });
    w({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: JSON.stringify(plan.call.arguments) } }] }, finish_reason: null }] });
    w({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
  } else {
    w({ choices: [{ index: 0, delta: { role: 'assistant', content: plan.text }, finish_reason: null }] });
    w({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  }
  w({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.write('data: [DONE]\n\n');
  res.end();
}

function responsesStream(res: ServerResponse, body: any, text: string, n: number): void {
  const sse = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const id = `resp_mock_${n}`;
  const item = { type: 'message', id: `msg_mock_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse('response.created', { response: { id, object: 'response', status: 'in_progress', model: body?.model } });
  sse('response.output_item.added', { output_index: 0, item: { ...item, content: [] } });
  sse('response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text });
  sse('response.output_item.done', { output_index: 0, item });
  sse('response.completed', { response: { id, object: 'response', status: 'completed', model: body?.model, output: [item],
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } } });
  res.end();
}
