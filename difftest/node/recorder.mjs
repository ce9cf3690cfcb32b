// The reference side's loopback recorder: an HTTP server on 127.0.0.1 (ephemeral port, never any
// other address) that keeps every request it receives (method, target, headers, exact body bytes)
// and answers with the reply it was told to give, cut into the same pieces our recorder uses
// (see src/canned.cpp: split_body).
import http from 'node:http';

// A pause between pieces so each leaves in its own TCP segment (matches ours: kPieceGap).
const PIECE_GAP_MS = 2;

export function splitBody(body, split) {
  if (split.startsWith('every:')) {
    let n = Number(split.slice('every:'.length));
    if (!(n > 0)) n = Math.max(body.length, 1);
    const pieces = [];
    for (let at = 0; at < body.length; at += n) pieces.push(body.subarray(at, at + n));
    return pieces;
  }
  if (split === 'inside_utf8') {
    const LEAD_MIN = 0xc0; // 110xxxxx and above start a multi-byte sequence
    const pieces = [];
    let start = 0;
    for (let i = 0; i < body.length; i++) {
      if (body[i] >= LEAD_MIN && i + 1 < body.length) {
        pieces.push(body.subarray(start, i + 1));
        start = i + 1;
      }
    }
    pieces.push(body.subarray(start));
    return pieces;
  }
  return [body];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function startRecorder() {
  const seen = [];
  let answerer = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const captured = { method: req.method, target: req.url, headers: pairsOf(req.rawHeaders), body: Buffer.concat(chunks) };
      seen.push(captured);
      if (!answerer) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"no canned reply"}');
        return;
      }
      const a = answerer(captured);
      res.writeHead(a.status ?? 200, { 'content-type': a.contentType, 'request-id': 'req_difftest', 'x-request-id': 'req_difftest' });
      for (const piece of splitBody(a.body, a.split ?? 'whole')) {
        if (res.destroyed) return;
        res.write(piece);
        await sleep(PIECE_GAP_MS);
      }
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      origin: `http://127.0.0.1:${server.address().port}`,
      answerWith(fn) { answerer = fn; },
      take() { return seen.splice(0, seen.length); },
      close() { return new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }); },
    }));
  });
}

// rawHeaders keeps the names as sent and repeated fields apart; records list them as pairs.
function pairsOf(raw) {
  const out = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i], raw[i + 1]]);
  return out;
}
