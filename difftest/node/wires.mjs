// One reference producer per wire: how a scenario's logical request becomes a call of the
// vendor's own SDK, and how the SDK's parsed reply becomes the view compared with our decoder's.
//
// Conventions (the same on every wire, so a divergence means the wire, not the producer):
// - Only what the SDK user would pass is passed; the SDK chooses paths, headers, defaults and
//   serialisation. That is the part of the reference no hand-written golden can provide.
// - Where an API accepts a plain string or a list of parts, a single text block is written as the
//   string and anything else as parts.
// - Tool arguments are handed over as the vendor's type: a JSON string on OpenAI (the exact bytes
//   of the scenario), an object elsewhere (the SDK serialises it).
// - Usage in a view is canonical (src/core message.hpp): input excludes cached tokens (OpenAI
//   family and Gemini subtract, Anthropic does not), output includes reasoning (Gemini's thoughts
//   are added to its candidates count), with missing counts as 0.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { Ollama } from 'ollama';
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema';
import { standardResponseFormat, standardTextFormat } from 'openai/helpers/standard-schema';

export const API_KEY = 'difftest-key';

// Typed answers (a scenario's request.answer = {name, schema}) go through each SDK's own
// structured-output helper. The OpenAI helpers take a Standard Schema validator; this one accepts
// anything and hands the scenario's JSON Schema over as the explicit schema (props.schema), so the
// SDK's own strict transform produces the reference.
const acceptAll = { '~standard': { version: 1, vendor: 'difftest', validate: (value) => ({ value }) } };

// ---- canonical transcript helpers (the core codec's JSON, src/core/codec.cpp) ----

const textOf = (blocks) => blocks.filter((b) => b.type === 'text').map((b) => b.text).join('');
const onlyText = (blocks) => blocks.length === 1 && blocks[0].type === 'text';
const argumentBytes = (b) => (b.input_raw !== undefined ? b.input_raw : JSON.stringify(b.input ?? {}));
const argumentObject = (b) => (b.input_raw !== undefined ? JSON.parse(b.input_raw) : (b.input ?? {}));
const dataUrl = (b) => `data:${b.mime_type};base64,${b.data}`;
// Responses tool-call identity is "call_id|item_id" in our transcript; a plain id is a call id.
const splitCallId = (id) => { const [callId, itemId] = id.split('|'); return { callId, itemId }; };
const num = (v) => (typeof v === 'number' ? v : 0);

function usage(input, output, cacheRead, cacheWrite, reasoning) {
  return { input_tokens: input, output_tokens: output, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite,
    reasoning_tokens: reasoning };
}

function view({ text = '', thinking = '', toolCalls = [], stopReason = '', usage: u, error = false }) {
  return { text, thinking, tool_calls: toolCalls, stop_reason: stopReason ?? '', usage: u ?? usage(0, 0, 0, 0, 0), error };
}

// A tool call in a view: arguments parsed, and the exact bytes when the SDK exposes them.
function toolCall(id, name, args, bytes) {
  const call = {};
  if (id !== undefined && id !== null && id !== '') call.id = id;
  call.name = name;
  call.arguments = args;
  if (bytes !== undefined) call.arguments_bytes = bytes;
  return call;
}

const tryParse = (s) => { try { return JSON.parse(s); } catch { return s; } };

// ---- anthropic-messages ----

const anthropicBlock = (b) => {
  if (b.type === 'text') return { type: 'text', text: b.text };
  if (b.type === 'image') return { type: 'image', source: { type: 'base64', media_type: b.mime_type, data: b.data } };
  if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: argumentObject(b) };
  if (b.type === 'thinking') return { type: 'thinking', thinking: b.thinking, signature: b.signature ?? '' };
  throw new Error(`anthropic: no reference form for a ${b.type} block`);
};
const anthropicContent = (blocks) => (onlyText(blocks) ? blocks[0].text : blocks.map(anthropicBlock));

function anthropicMessages(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: anthropicContent(m.content) });
    else if (m.role === 'assistant') out.push({ role: 'assistant', content: m.content.map(anthropicBlock) });
    else if (m.role === 'tool_result') {
      const block = { type: 'tool_result', tool_use_id: m.tool_use_id, content: anthropicContent(m.content) };
      if (m.is_error) block.is_error = true;
      // Consecutive results share one user message (the API rejects split result runs).
      const last = out[out.length - 1];
      if (last?.role === 'user' && Array.isArray(last.content) && last.content.every((c) => c.type === 'tool_result')) last.content.push(block);
      else out.push({ role: 'user', content: [block] });
    }
  }
  return out;
}

const anthropic = {
  client: (origin) => new Anthropic({ apiKey: API_KEY, baseURL: origin, maxRetries: 0 }),
  params(req, model, extra) {
    const p = { model, max_tokens: req.max_tokens };
    if (req.system !== undefined) p.system = req.system;
    p.messages = anthropicMessages(req.messages);
    if (req.tools?.length) p.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
    if (req.temperature !== undefined) p.temperature = req.temperature;
    if (req.top_p !== undefined) p.top_p = req.top_p;
    if (req.stop_sequences?.length) p.stop_sequences = req.stop_sequences;
    if (req.answer) p.output_config = { format: jsonSchemaOutputFormat(req.answer.schema) };
    return { ...p, ...extra };
  },
  async send(c, p, stream) {
    if (!stream) return c.messages.create(p);
    for await (const _ of await c.messages.create({ ...p, stream: true })) { /* drain */ }
  },
  async view(c, p, stream) {
    if (!stream) return anthropicView(await c.messages.create(p));
    const s = c.messages.stream(p);
    const bytes = new Map(); // content index -> concatenated partial_json, as the SDK delivered it
    s.on('streamEvent', (ev) => {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'input_json_delta') bytes.set(ev.index, (bytes.get(ev.index) ?? '') + ev.delta.partial_json);
    });
    try { return anthropicView(await s.finalMessage(), bytes); }
    catch { return { ...anthropicView(s.currentMessage ?? { content: [] }, bytes), error: true }; }
  },
};

function anthropicView(m, bytes) {
  const blocks = m.content ?? [];
  const u = m.usage ?? {};
  return view({
    text: blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    thinking: blocks.filter((b) => b.type === 'thinking').map((b) => b.thinking).join(''),
    toolCalls: blocks.map((b, i) => [b, i]).filter(([b]) => b.type === 'tool_use').map(([b, i]) => toolCall(b.id, b.name, b.input, bytes?.get(i))),
    stopReason: m.stop_reason,
    // Anthropic's input_tokens already excludes cache reads and writes: nothing to subtract.
    usage: usage(num(u.input_tokens), num(u.output_tokens), num(u.cache_read_input_tokens), num(u.cache_creation_input_tokens), 0),
  });
}

// ---- openai-completions ----

function chatMessages(req) {
  const out = [];
  if (req.system !== undefined) out.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: onlyText(m.content) ? m.content[0].text : m.content.map((b) => (b.type === 'text'
        ? { type: 'text', text: b.text } : { type: 'image_url', image_url: { url: dataUrl(b) } })) });
    } else if (m.role === 'assistant') {
      const msg = { role: 'assistant' };
      const text = textOf(m.content);
      if (text) msg.content = text;
      const calls = m.content.filter((b) => b.type === 'tool_use');
      if (calls.length) msg.tool_calls = calls.map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: argumentBytes(b) } }));
      out.push(msg);
    } else if (m.role === 'tool_result') {
      out.push({ role: 'tool', tool_call_id: m.tool_use_id, content: textOf(m.content) });
    }
  }
  return out;
}

const openaiClient = (origin) => new OpenAI({ apiKey: API_KEY, baseURL: `${origin}/v1`, maxRetries: 0 });

const completions = {
  client: openaiClient,
  params(req, model, extra) {
    const p = { model, messages: chatMessages(req) };
    if (req.tools?.length) p.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
    if (req.max_tokens !== undefined) p.max_completion_tokens = req.max_tokens;
    if (req.temperature !== undefined) p.temperature = req.temperature;
    if (req.top_p !== undefined) p.top_p = req.top_p;
    if (req.stop_sequences?.length) p.stop = req.stop_sequences;
    if (req.answer) p.response_format = standardResponseFormat(acceptAll, req.answer.name, { schema: req.answer.schema });
    return { ...p, ...extra };
  },
  async send(c, p, stream) {
    if (!stream) return c.chat.completions.create(p);
    for await (const _ of await c.chat.completions.create({ ...p, stream: true })) { /* drain */ }
  },
  async view(c, p, stream) {
    if (!stream) return chatView(await c.chat.completions.create(p));
    const s = c.chat.completions.stream({ ...p, stream_options: { include_usage: true } });
    let text = '';
    s.on('content', (delta) => { text += delta; });
    try { return chatView(await s.finalChatCompletion()); }
    catch {
      const snap = s.currentChatCompletionSnapshot;
      return { ...(snap ? chatView(snap) : view({})), text, error: true };
    }
  },
};

function chatView(r) {
  const choice = r.choices?.[0] ?? {};
  const m = choice.message ?? {};
  const u = r.usage ?? {};
  const cached = num(u.prompt_tokens_details?.cached_tokens);
  return view({
    text: m.content ?? '',
    thinking: m.reasoning_content ?? '',
    toolCalls: (m.tool_calls ?? []).map((tc) => toolCall(tc.id, tc.function.name, tryParse(tc.function.arguments), tc.function.arguments)),
    stopReason: choice.finish_reason,
    // prompt_tokens includes the cached ones: net them out once.
    usage: usage(num(u.prompt_tokens) - cached, num(u.completion_tokens), cached, 0, num(u.completion_tokens_details?.reasoning_tokens)),
  });
}

// ---- openai-responses ----

function responsesInput(req) {
  const out = [];
  for (const m of req.messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: onlyText(m.content) ? m.content[0].text : m.content.map((b) => (b.type === 'text'
        ? { type: 'input_text', text: b.text } : { type: 'input_image', image_url: dataUrl(b), detail: 'auto' })) });
    } else if (m.role === 'assistant') {
      const text = textOf(m.content);
      if (text) out.push({ role: 'assistant', content: text });
      for (const b of m.content.filter((x) => x.type === 'tool_use')) {
        const { callId, itemId } = splitCallId(b.id);
        const item = { type: 'function_call', call_id: callId, name: b.name, arguments: argumentBytes(b) };
        if (itemId) item.id = itemId;
        out.push(item);
      }
    } else if (m.role === 'tool_result') {
      out.push({ type: 'function_call_output', call_id: splitCallId(m.tool_use_id).callId, output: textOf(m.content) });
    }
  }
  return out;
}

const responses = {
  client: openaiClient,
  params(req, model, extra) {
    const p = { model };
    if (req.system !== undefined) p.instructions = req.system;
    p.input = responsesInput(req);
    // strict defaults to true on this API when omitted, so it is always stated (REQ-PROV-16).
    if (req.tools?.length) p.tools = req.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.input_schema, strict: false }));
    if (req.max_tokens !== undefined) p.max_output_tokens = req.max_tokens;
    if (req.temperature !== undefined) p.temperature = req.temperature;
    if (req.top_p !== undefined) p.top_p = req.top_p;
    if (req.answer) p.text = { format: standardTextFormat(acceptAll, req.answer.name, { schema: req.answer.schema }) };
    return { ...p, ...extra };
  },
  async send(c, p, stream) {
    if (!stream) return c.responses.create(p);
    for await (const _ of await c.responses.create({ ...p, stream: true })) { /* drain */ }
  },
  async view(c, p, stream) {
    if (!stream) return responsesView(await c.responses.create(p));
    const s = c.responses.stream(p);
    let text = '';
    s.on('response.output_text.delta', (ev) => { text += ev.delta; });
    try { return responsesView(await s.finalResponse()); }
    catch { return { ...view({}), text, error: true }; }
  },
};

function responsesView(r) {
  const u = r.usage ?? {};
  const cached = num(u.input_tokens_details?.cached_tokens);
  const out = r.output ?? [];
  const text = out.filter((o) => o.type === 'message').flatMap((o) => o.content ?? []).filter((c) => c.type === 'output_text').map((c) => c.text).join('');
  const thinking = out.filter((o) => o.type === 'reasoning').flatMap((o) => o.summary ?? []).map((s) => s.text).join('');
  return view({
    text,
    thinking,
    // The SDK's identity for a call is call_id; the item id travels beside it.
    toolCalls: out.filter((o) => o.type === 'function_call').map((o) => toolCall(o.call_id, o.name, tryParse(o.arguments), o.arguments)),
    // Responses has no finish reason: the status (or why it is incomplete) stands in for it.
    stopReason: r.status === 'incomplete' ? (r.incomplete_details?.reason ?? 'incomplete') : r.status,
    usage: usage(num(u.input_tokens) - cached, num(u.output_tokens), cached, 0, num(u.output_tokens_details?.reasoning_tokens)),
    error: r.status === 'failed',
  });
}

// ---- google-generative-ai ----

function geminiContents(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', parts: m.content.map((b) => (b.type === 'text' ? { text: b.text } : { inlineData: { mimeType: b.mime_type, data: b.data } })) });
    } else if (m.role === 'assistant') {
      out.push({ role: 'model', parts: m.content.map((b) => {
        if (b.type === 'text') return { text: b.text };
        if (b.type === 'tool_use') return { functionCall: { name: b.name, args: argumentObject(b) }, ...(b.thought_signature ? { thoughtSignature: b.thought_signature } : {}) };
        throw new Error(`gemini: no reference form for a ${b.type} block`);
      }) });
    } else if (m.role === 'tool_result') {
      // Results pair with calls by name and position; one user content holds the run of them.
      const part = { functionResponse: { name: m.tool_name, response: m.is_error ? { error: textOf(m.content) } : { output: textOf(m.content) } } };
      const last = out[out.length - 1];
      if (last?.role === 'user' && last.parts.every((x) => x.functionResponse)) last.parts.push(part);
      else out.push({ role: 'user', parts: [part] });
    }
  }
  return out;
}

const gemini = {
  client: (origin) => new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: origin } }),
  params(req, model, extra) {
    const config = {};
    if (req.system !== undefined) config.systemInstruction = req.system;
    if (req.tools?.length) config.tools = [{ functionDeclarations: req.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.input_schema })) }];
    if (req.max_tokens !== undefined) config.maxOutputTokens = req.max_tokens;
    if (req.temperature !== undefined) config.temperature = req.temperature;
    if (req.top_p !== undefined) config.topP = req.top_p;
    if (req.stop_sequences?.length) config.stopSequences = req.stop_sequences;
    if (req.answer) {
      config.responseMimeType = 'application/json';
      config.responseJsonSchema = req.answer.schema;
    }
    return { model, contents: geminiContents(req.messages), config: { ...config, ...extra } };
  },
  async send(c, p, stream) {
    if (!stream) return c.models.generateContent(p);
    for await (const _ of await c.models.generateContentStream(p)) { /* drain */ }
  },
  async view(c, p, stream) {
    if (!stream) return geminiView([await c.models.generateContent(p)]);
    // The SDK has no accumulator for streams: the caller joins the chunks, as its docs show.
    const chunks = [];
    try {
      for await (const chunk of await c.models.generateContentStream(p)) chunks.push(chunk);
      return geminiView(chunks);
    } catch { return { ...geminiView(chunks), error: true }; }
  },
};

function geminiView(chunks) {
  let text = '';
  let thinking = '';
  const calls = [];
  let finish = '';
  let u = {};
  for (const chunk of chunks) {
    const cand = chunk.candidates?.[0];
    for (const part of cand?.content?.parts ?? []) {
      if (part.text !== undefined && part.thought) thinking += part.text;
      else if (part.text !== undefined) text += part.text;
      if (part.functionCall) calls.push(toolCall(part.functionCall.id, part.functionCall.name, part.functionCall.args ?? {}, undefined));
    }
    if (cand?.finishReason) finish = cand.finishReason;
    if (chunk.usageMetadata) u = chunk.usageMetadata;
  }
  const cached = num(u.cachedContentTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  // promptTokenCount includes the cached part; thoughts are reported beside the candidates.
  return view({ text, thinking, toolCalls: calls, stopReason: finish,
    usage: usage(num(u.promptTokenCount) - cached, num(u.candidatesTokenCount) + thoughts, cached, 0, thoughts) });
}

// ---- ollama-chat ----

function ollamaMessages(req) {
  const out = [];
  if (req.system !== undefined) out.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    if (m.role === 'user') {
      const msg = { role: 'user', content: textOf(m.content) };
      const images = m.content.filter((b) => b.type === 'image').map((b) => b.data);
      if (images.length) msg.images = images;
      out.push(msg);
    } else if (m.role === 'assistant') {
      const msg = { role: 'assistant', content: textOf(m.content) };
      const calls = m.content.filter((b) => b.type === 'tool_use');
      if (calls.length) msg.tool_calls = calls.map((b) => ({ function: { name: b.name, arguments: argumentObject(b) } }));
      out.push(msg);
    } else if (m.role === 'tool_result') {
      out.push({ role: 'tool', content: textOf(m.content), tool_name: m.tool_name });
    }
  }
  return out;
}

const ollama = {
  client: (origin) => new Ollama({ host: origin }),
  params(req, model, extra) {
    const p = { model, messages: ollamaMessages(req) };
    if (req.tools?.length) p.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
    const options = {};
    if (req.max_tokens !== undefined) options.num_predict = req.max_tokens;
    if (req.temperature !== undefined) options.temperature = req.temperature;
    if (req.top_p !== undefined) options.top_p = req.top_p;
    if (req.stop_sequences?.length) options.stop = req.stop_sequences;
    if (Object.keys(options).length) p.options = options;
    if (req.answer) p.format = req.answer.schema;
    return { ...p, ...extra };
  },
  async send(c, p, stream) {
    if (!stream) return c.chat({ ...p, stream: false });
    for await (const _ of await c.chat({ ...p, stream: true })) { /* drain */ }
  },
  async view(c, p, stream) {
    if (!stream) return ollamaView([await c.chat({ ...p, stream: false })]);
    const parts = [];
    try {
      for await (const part of await c.chat({ ...p, stream: true })) parts.push(part);
      return ollamaView(parts);
    } catch { return { ...ollamaView(parts), error: true }; }
  },
};

function ollamaView(parts) {
  let text = '';
  let thinking = '';
  const calls = [];
  let last = {};
  for (const part of parts) {
    text += part.message?.content ?? '';
    thinking += part.message?.thinking ?? '';
    for (const tc of part.message?.tool_calls ?? []) calls.push(toolCall(undefined, tc.function.name, tc.function.arguments ?? {}, undefined));
    if (part.done) last = part;
  }
  return view({ text, thinking, toolCalls: calls, stopReason: last.done_reason ?? '',
    usage: usage(num(last.prompt_eval_count), num(last.eval_count), 0, 0, 0) });
}

export const WIRES = {
  'anthropic-messages': anthropic,
  'openai-completions': completions,
  'openai-responses': responses,
  'google-generative-ai': gemini,
  'ollama-chat': ollama,
};
