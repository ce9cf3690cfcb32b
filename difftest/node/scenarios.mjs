// The scenario folder as the reference producers read it (the same files our C++ drivers read;
// layout in src/scenario.hpp). Also the record writer, whose shape src/records.hpp parses.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function loadScenarios(source) {
  const folder = path.join(source, 'scenarios');
  const wires = JSON.parse(readFileSync(path.join(folder, 'wires.json'), 'utf8')).wires;
  const scenarios = [];
  for (const direction of ['request', 'response']) {
    const dir = path.join(folder, direction);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const doc = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
      const id = `${direction}/${file.slice(0, -'.json'.length)}`;
      const wireList = direction === 'request' ? (doc.wires?.length ? doc.wires : Object.keys(wires)) : Object.keys(doc.canned);
      scenarios.push({ id, direction, doc, wires: wireList });
    }
  }
  return { wires, scenarios, find: (id) => scenarios.find((s) => s.id === id) };
}

// '*' matches any run of characters, like compare.cpp's glob_match.
export function globMatch(pattern, text) {
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
  return re.test(text);
}

export function writeRecord(out, record) {
  const file = path.join(out, record.scenario, `${record.wire}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(record, null, 1) + '\n');
}

// A captured request as a record member: the body as text when it is valid UTF-8 (JSON bodies
// are), else base64, so the exact bytes survive.
export function requestMember(captured) {
  const text = captured.body.toString('utf8');
  const exact = Buffer.from(text, 'utf8').equals(captured.body);
  return { method: captured.method, target: captured.target, headers: captured.headers,
    ...(exact ? { body: text } : { body_base64: captured.body.toString('base64') }) };
}

// Mirrors src/canned.cpp: wants_stream.
export function wantsStream(wire, target, body) {
  if (target.includes(':streamGenerateContent')) return true;
  let doc; try { doc = JSON.parse(body.toString('utf8')); } catch { doc = undefined; }
  const stream = doc && typeof doc === 'object' ? doc.stream : undefined;
  if (wire === 'ollama-chat') return stream === undefined || stream !== false;
  return stream === true;
}
