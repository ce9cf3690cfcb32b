// The reference producers: every scenario on every wire through the vendor's own SDK, against a
// loopback recorder. Writes <out>/<scenario id>/<wire>.json (src/records.hpp):
//   request direction:  what the SDK sent (method, target, headers, exact body bytes)
//   response direction: the SDK's view of the scenario's canned reply bytes
//   either, on failure: {"error": "..."} (compared as reference-failed)
//   node produce.mjs --source <difftest dir> --out <folder> [--only-wire GLOB]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startRecorder } from './recorder.mjs';
import { globMatch, loadScenarios, requestMember, wantsStream, writeRecord } from './scenarios.mjs';
import { WIRES } from './wires.mjs';

const arg = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const source = arg('--source');
const out = arg('--out');
const onlyWire = arg('--only-wire', '*');
if (!source || !out) { console.error('usage: node produce.mjs --source DIR --out DIR [--only-wire GLOB]'); process.exit(2); }

const set = loadScenarios(source);
const recorder = await startRecorder();
const modelId = (wire) => set.wires[wire].model.slice(set.wires[wire].model.indexOf('/') + 1);
const canned = (...parts) => readFileSync(path.join(source, 'canned', ...parts));

async function referenceRequest(scenario, wire) {
  const producer = WIRES[wire];
  recorder.answerWith((req) => {
    const stream = wantsStream(wire, req.target, req.body);
    return { contentType: stream ? (set.wires[wire].stream_content_type ?? 'text/event-stream') : 'application/json',
      body: canned(wire, stream ? 'reply.stream' : 'reply.json') };
  });
  recorder.take();
  const params = producer.params(scenario.doc.request, modelId(wire), scenario.doc.reference?.[wire] ?? {});
  let failure;
  try { await producer.send(producer.client(recorder.origin), params, scenario.doc.stream === true); }
  catch (e) { failure = e; }
  const seen = recorder.take();
  // The SDK may fail on our canned answer after sending; what it sent is the reference.
  if (!seen.length) return { error: `the SDK sent no request: ${failure?.message ?? 'no error either'}` };
  return { request: requestMember(seen[0]) };
}

async function referenceView(scenario, wire) {
  const producer = WIRES[wire];
  const reply = scenario.doc.canned[wire];
  recorder.answerWith(() => ({ status: reply.status ?? 200, contentType: reply.content_type, body: canned(reply.file), split: scenario.doc.split ?? 'whole' }));
  recorder.take();
  const from = set.find(`request/${scenario.doc.request_from}`);
  const params = producer.params(from.doc.request, modelId(wire), from.doc.reference?.[wire] ?? {});
  const v = await producer.view(producer.client(recorder.origin), params, scenario.doc.stream === true);
  if (!recorder.take().length) return { error: 'the SDK sent no request' };
  return { view: v };
}

let written = 0;
for (const scenario of set.scenarios) {
  for (const wire of scenario.wires) {
    if (!globMatch(onlyWire, wire)) continue;
    let result;
    try { result = scenario.direction === 'request' ? await referenceRequest(scenario, wire) : await referenceView(scenario, wire); }
    catch (e) { result = { error: `the reference producer failed: ${e?.stack ?? e}` }; }
    writeRecord(out, { scenario: scenario.id, wire, side: 'reference', ...result });
    written++;
  }
}
await recorder.close();
console.log(`difftest references: ${written} records in ${out}`);
