// The independent side of the telemetry differential (tests/telemetry/peer_test.cpp).
//
//   node replay_trace.mjs <ours.json> <report.json>
//
// <ours.json> is one ExportTraceServiceRequest agentkit_telemetry posted for a scripted agent run.
// This script builds the same trace with the official OpenTelemetry JS SDK (sdk-trace-base, same
// names, kinds, parents, attributes with their types, statuses, events, resource and scope),
// exports it with the official OTLP/HTTP JSON exporter to a loopback recorder it starts, then
// canonicalises both requests (ids and times aside: they are random and clock-bound) and writes
// both and their differences to <report.json>. Exit 0 when they agree field for field after the
// accepted differences of LEDGER, 1 otherwise, 2 on a usage or setup error.
import fs from 'node:fs';
import http from 'node:http';
import { trace, context, SpanKind as JsKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';

// Accepted differences, each applied to both sides by canonicalise().
export const LEDGER = [
  'ids and times: traceId, spanId, parentSpanId, *TimeUnixNano are random or clock-bound; parents are compared by span name',
  'proto3 JSON defaults: a zero number, an empty string, an empty array and an empty object are the same as absent (droppedAttributesCount: 0, events: [], status: {})',
  'an integral double: JS numbers are one type, so the SDK encodes 2.0 as intValue "2"; a doubleValue with an integral value is compared as a number',
  'intValue: either a decimal string or a JSON number (the JSON mapping accepts both); compared as a string',
  'attribute order within a span is not meaningful; attributes are compared sorted by key',
];

const [oursPath, reportPath] = process.argv.slice(2);
if (!oursPath || !reportPath) {
  console.error('usage: node replay_trace.mjs <ours.json> <report.json>');
  process.exit(2);
}
const ours = JSON.parse(fs.readFileSync(oursPath, 'utf8'));

function decodeValue(v) {
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return (v.arrayValue.values || []).map(decodeValue);
  throw new Error('unsupported AnyValue ' + JSON.stringify(v));
}
const attrsOf = (list) => Object.fromEntries((list || []).map((a) => [a.key, decodeValue(a.value)]));
const kindOf = { 1: JsKind.INTERNAL, 2: JsKind.SERVER, 3: JsKind.CLIENT, 4: JsKind.PRODUCER, 5: JsKind.CONSUMER };
const nanosToHr = (s) => {
  const n = BigInt(s);
  return [Number(n / 1000000000n), Number(n % 1000000000n)];
};

async function replay(url) {
  const rs = ours.resourceSpans[0];
  const scope = rs.scopeSpans[0].scope;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(attrsOf(rs.resource.attributes)),
    // One batch for the whole trace, as ours: flushed explicitly below.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { maxExportBatchSize: 1000, maxQueueSize: 1000, scheduledDelayMillis: 60000 })],
  });
  const tracer = provider.getTracer(scope.name, scope.version);
  const spans = rs.scopeSpans[0].spans;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const started = new Map();
  // Start parents before children (ours end children first: order by start time).
  const order = [...spans].sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
  const startOne = (s) => {
    if (started.has(s.spanId)) return started.get(s.spanId);
    let ctx = context.active();
    if (s.parentSpanId && byId.has(s.parentSpanId)) ctx = trace.setSpan(ctx, startOne(byId.get(s.parentSpanId)));
    const span = tracer.startSpan(s.name, { kind: kindOf[s.kind], startTime: nanosToHr(s.startTimeUnixNano) }, ctx);
    started.set(s.spanId, span);
    return span;
  };
  order.forEach(startOne);
  // Attributes, events and status, then end in our order.
  for (const s of spans) {
    const span = started.get(s.spanId);
    span.setAttributes(attrsOf(s.attributes));
    for (const e of s.events || []) span.addEvent(e.name, attrsOf(e.attributes), nanosToHr(e.timeUnixNano));
    if (s.status && s.status.code) {
      span.setStatus({ code: s.status.code === 2 ? SpanStatusCode.ERROR : SpanStatusCode.OK, message: s.status.message });
    }
  }
  for (const s of spans) started.get(s.spanId).end(nanosToHr(s.endTimeUnixNano));
  await provider.forceFlush();
  await provider.shutdown();
}

function canonicalValue(v) {
  if ('intValue' in v) return { intValue: String(v.intValue) };
  if ('doubleValue' in v) {
    const d = Number(v.doubleValue);
    return Number.isInteger(d) ? { intValue: String(d) } : { doubleValue: d };
  }
  if ('arrayValue' in v) return { arrayValue: { values: (v.arrayValue.values || []).map(canonicalValue) } };
  return v;
}
const canonicalAttrs = (list) =>
  (list || []).map((a) => ({ key: a.key, value: canonicalValue(a.value) })).sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));

function dropDefaults(o) {
  if (Array.isArray(o)) return o.map(dropDefaults);
  if (o === null || typeof o !== 'object') return o;
  const out = {};
  for (const [k, v] of Object.entries(o)) {
    const c = dropDefaults(v);
    if (c === 0 || c === '' || c === undefined || (Array.isArray(c) && c.length === 0)) continue;
    if (c && typeof c === 'object' && !Array.isArray(c) && Object.keys(c).length === 0) continue;
    out[k] = c;
  }
  return out;
}

function canonicalise(doc) {
  const rs = doc.resourceSpans[0];
  const spans = rs.scopeSpans[0].spans;
  const nameOf = new Map(spans.map((s) => [s.spanId, s.name]));
  const canon = spans.map((s) => {
    const c = { ...s };
    delete c.traceId;
    delete c.spanId;
    delete c.startTimeUnixNano;
    delete c.endTimeUnixNano;
    c.parent = s.parentSpanId ? nameOf.get(s.parentSpanId) || '(outside)' : '';
    delete c.parentSpanId;
    c.attributes = canonicalAttrs(s.attributes);
    c.events = (s.events || []).map((e) => ({ name: e.name, attributes: canonicalAttrs(e.attributes) }));
    return c;
  });
  canon.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return dropDefaults({
    resource: { attributes: canonicalAttrs(rs.resource.attributes) },
    scope: rs.scopeSpans[0].scope,
    spans: canon,
  });
}

function differences(a, b, path = '$', out = []) {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path}: ours ${JSON.stringify(a)} / sdk ${JSON.stringify(b)}`);
  } else if (a && typeof a === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) differences(a[k], b[k], `${path}.${k}`, out);
  } else if (a !== b) {
    out.push(`${path}: ours ${JSON.stringify(a)} / sdk ${JSON.stringify(b)}`);
  }
  return out;
}

const bodies = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    bodies.push({ path: req.url, type: req.headers['content-type'], body });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', async () => {
  try {
    const url = `http://127.0.0.1:${server.address().port}/v1/traces`;
    await replay(url);
    server.close();
    if (bodies.length !== 1) throw new Error(`the SDK sent ${bodies.length} requests, expected 1`);
    const theirs = JSON.parse(bodies[0].body);
    const a = canonicalise(ours);
    const b = canonicalise(theirs);
    const diffs = differences(a, b);
    fs.writeFileSync(reportPath, JSON.stringify({ ledger: LEDGER, ours: a, sdk: b, sdk_raw: theirs, content_type: bodies[0].type, differences: diffs }, null, 1));
    if (diffs.length) console.error(diffs.join('\n'));
    process.exit(diffs.length ? 1 : 0);
  } catch (e) {
    console.error(String(e && e.stack ? e.stack : e));
    process.exit(2);
  }
});
