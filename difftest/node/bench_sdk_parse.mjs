// Throughput of a vendor SDK parsing one reply file, for comparison with our decoder's MB/s on
// the same bytes (issue 5's performance section prints the ratio).
//   node bench_sdk_parse.mjs --wire openai-completions --file ../canned/openai-completions/tool_calls.sse
//        [--stream true|false] [--repeat 200] [--chunk 4096] [--content-type text/event-stream]
// The bytes come from an in-memory fetch (no socket), cut into --chunk byte pieces, so the figure
// is the SDK's own work: HTTP body streaming, SSE/NDJSON framing, JSON parsing and accumulation
// into its final message. Prints one line: wire, bytes, repeats, seconds, MB/s (10^6 bytes).
import { readFileSync } from 'node:fs';
import { WIRES } from './wires.mjs';

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const wire = arg('--wire');
const file = arg('--file');
if (!wire || !file || !WIRES[wire]) {
  console.error(`usage: node bench_sdk_parse.mjs --wire <${Object.keys(WIRES).join('|')}> --file F [--stream true|false] [--repeat N] [--chunk BYTES]`);
  process.exit(2);
}
const bytes = readFileSync(file);
const stream = arg('--stream', String(!file.endsWith('.json'))) === 'true';
const repeat = Number(arg('--repeat', '200'));
const chunk = Number(arg('--chunk', '4096'));
const defaultType = !stream ? 'application/json' : wire === 'ollama-chat' ? 'application/x-ndjson' : 'text/event-stream';
const contentType = arg('--content-type', defaultType);
const WARMUP_RUNS = 20; // let the JIT settle before timing

function body() {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) { controller.close(); return; }
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + chunk)));
      at += chunk;
    },
  });
}
// Every SDK here falls back to the global fetch; replacing it keeps the socket out of the figure.
globalThis.fetch = async () => new Response(body(), { status: 200, headers: { 'content-type': contentType } });

const producer = WIRES[wire];
const client = producer.client('http://127.0.0.1:9');
const params = producer.params({ max_tokens: 256, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, 'bench-model', {});
for (let i = 0; i < WARMUP_RUNS; i++) await producer.view(client, params, stream);
let failures = 0;
const started = process.hrtime.bigint();
for (let i = 0; i < repeat; i++) {
  const v = await producer.view(client, params, stream);
  if (v.error) failures++;
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const mb = (bytes.length * repeat) / 1e6;
console.log(`${wire} sdk-parse bytes=${bytes.length} repeat=${repeat} seconds=${seconds.toFixed(3)} MB/s=${(mb / seconds).toFixed(2)}`);
// A figure over replies the SDK rejected measures the error path, not parsing: refuse it.
if (failures) { console.error(`${failures} of ${repeat} parses failed; the figure is not a parse rate`); process.exit(1); }
