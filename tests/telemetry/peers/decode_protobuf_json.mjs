// The loopback receiver's decoder: reads one OTLP/HTTP JSON trace request (our exporter's body) with
// the official protobuf JSON mapping — the ExportTraceServiceRequest type that
// @opentelemetry/otlp-transformer generates from the opentelemetry-proto files (protobufjs
// fromObject/toObject) — encodes it to the binary wire format, decodes that again, and reports
// every field that did not survive. A member the schema does not know, a wrong type or a value
// out of range is lost on the way and shows up as a difference.
//
//   node decode_protobuf_json.mjs <request.json> <report.json>
//
// OTLP/JSON differs from the proto3 JSON mapping in one documented way: trace and span ids are
// hex strings, not base64; they are converted on the way in and out. Proto3 does not carry a field
// set to its default (0, "", false, empty), so both sides are compared without such fields.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const root = require('otlp-transformer-protobuf/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const ID_KEYS = new Set(['traceId', 'spanId', 'parentSpanId']);

function mapIds(value, convert) {
  if (Array.isArray(value)) return value.map((v) => mapIds(v, convert));
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = ID_KEYS.has(k) && typeof v === 'string' ? convert(v) : mapIds(v, convert);
  }
  return out;
}
const hexToBase64 = (hex) => Buffer.from(hex, 'hex').toString('base64');
const base64ToHex = (b64) => Buffer.from(b64, 'base64').toString('hex');

function isDefault(v) {
  return v === 0 || v === '0' || v === '' || v === false || v === null ||
      (Array.isArray(v) && v.length === 0);
}

// Numbers and numeric strings compare as text (int64 travels as a string); defaults dropped.
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return typeof value === 'number' ? String(value) : value;
  const out = {};
  for (const k of Object.keys(value).sort()) {
    const v = canonical(value[k]);
    if (isDefault(v)) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

function differences(a, b, path, out) {
  if (out.length >= 50) return;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
      out.push({ path, sent: a, decoded: b });
      return;
    }
    a.forEach((v, i) => differences(v, b[i], `${path}[${i}]`, out));
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      differences(a[k], b[k], path ? `${path}.${k}` : k, out);
    }
    return;
  }
  if (a !== b) out.push({ path, sent: a, decoded: b });
}

const [, , input, reportPath] = process.argv;
const sent = JSON.parse(readFileSync(input, 'utf8'));
const message = Request.fromObject(mapIds(sent, hexToBase64));
const bytes = Request.encode(message).finish();
const decoded = Request.toObject(Request.decode(bytes), {
  longs: String, enums: Number, bytes: String, defaults: false, arrays: true, oneofs: false,
});
const found = [];
differences(canonical(sent), canonical(mapIds(decoded, base64ToHex)), '', found);
let spans = 0;
for (const rs of decoded.resourceSpans ?? []) {
  for (const ss of rs.scopeSpans ?? []) spans += (ss.spans ?? []).length;
}
writeFileSync(reportPath, JSON.stringify({
  protobuf_bytes: bytes.length, spans, differences: found,
}, null, 2));
