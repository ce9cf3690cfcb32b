// The end-to-end benchmark's peer: the OpenAI Agents SDK for JavaScript running the same agent
// (one tool, write_note) against the same fake Responses server as tests/bench/e2e_bench.cpp,
// streaming on, tracing disabled. Prints one JSON line of figures for the mode asked:
//   node e2e_peer.mjs <base_url> turns <n>                   -> a run of n model calls
//   node e2e_peer.mjs <base_url> depth <messages> <n>        -> n calls after a history of that depth
//   node e2e_peer.mjs <base_url> concurrent <sessions> <n> <delay_ms>
//   node e2e_peer.mjs <base_url> first                       -> one call (time to first request)
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const [base, mode, a, b, c] = process.argv.slice(2);
setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ apiKey: 'bench-key', baseURL: base, maxRetries: 0 }));
if (typeof setOpenAIAPI === 'function') setOpenAIAPI('responses');

const writeNote = tool({
  name: 'write_note',
  description: 'Writes a note.',
  parameters: z.object({ text: z.string() }),
  execute: async () => 'ok',
});
const agent = new Agent({ name: 'bench', instructions: 'bench', tools: [writeNote], model: 'gpt-6.2-sol' });

async function once(input, turns) {
  const result = await run(agent, input, { stream: true, maxTurns: turns + 2 });
  for await (const _ of result) {
    // drain every event, as a UI would
  }
  await result.completed;
  return result;
}

function threads() {
  const m = /Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : 0;
}

function history(depth) {
  const items = [];
  for (let i = 0; i < depth; ++i) {
    if (i % 2 === 0) items.push({ role: 'user', content: `question number ${i}` });
    else items.push({ role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `an answer of moderate length, number ${i}` }] });
  }
  return items;
}

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;  // ms
};

if (mode === 'first') {
  await once('go turns=1', 1);
  console.log(JSON.stringify({ ok: true }));
} else if (mode === 'turns') {
  const n = Number(a);
  await once('warm turns=2', 2);
  const c0 = cpu();
  const t0 = performance.now();
  await once(`go turns=${n}`, n);
  console.log(JSON.stringify({ wall_ms: performance.now() - t0, cpu_ms: cpu() - c0, turns: n }));
} else if (mode === 'depth') {
  const depth = Number(a);
  const n = Number(b);
  const input = history(depth);
  input.push({ role: 'user', content: `go turns=${n}` });
  await once([...history(depth), { role: 'user', content: 'warm turns=2' }], 2);
  const c0 = cpu();
  const t0 = performance.now();
  await once(input, n);
  console.log(JSON.stringify({ wall_ms: performance.now() - t0, cpu_ms: cpu() - c0, turns: n }));
} else if (mode === 'concurrent') {
  const sessions = Number(a);
  const n = Number(b);
  const delay = Number(c);
  let peakThreads = threads();
  const sampler = setInterval(() => { peakThreads = Math.max(peakThreads, threads()); }, 10);
  const c0 = cpu();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: sessions }, () => once(`go turns=${n} delay=${delay}`, n)));
  const wall = performance.now() - t0;
  clearInterval(sampler);
  peakThreads = Math.max(peakThreads, threads());
  console.log(JSON.stringify({ wall_ms: wall, cpu_ms: cpu() - c0, turns: sessions * n, peak_rss_kb: process.resourceUsage().maxRSS, threads: peakThreads }));
}
