// A server built on the official v2 TypeScript SDK (@modelcontextprotocol/server), the only
// 2026-07-28 server implementation we can run: the modern-era peer of our client's interop tests.
//   node v2_server.mjs stdio [serve|reject]        dual-era (serve, the SDK default) or modern-only
//   node v2_server.mjs http PORT [stateless|reject] createMcpHandler behind node:http (prints "listening")
// Tools: echo {message}; confirm {} (asks an elicitation through input_required, twice when
// arguments.rounds is 2); region {region} with an x-mcp-header annotation.
import http from 'node:http';
import { McpServer, acceptedContent, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const [transport, second, third] = process.argv.slice(2);

function factory() {
  const server = new McpServer({ name: 'v2-fixture', version: '0.0.1' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('echo', { description: 'Echo a message', inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
  server.registerTool('confirm', { description: 'Asks for confirmation first', inputSchema: { rounds: z.number().optional() } },
    async ({ rounds }, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const first = acceptedContent(responses, 'first');
      const second = acceptedContent(responses, 'second');
      const state = ctx.mcpReq.requestState?.();
      const ask = (key) => inputRequired({
        inputRequests: { [key]: inputRequired.elicit({ message: `Confirm (${key})?`,
          requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] } }) },
        requestState: `after-${key}`,
      });
      if ((rounds ?? 1) >= 2 && state === 'after-first' && first) return ask('second');
      if (!first && !second) return ask('first');
      const answer = second ?? first;
      return { content: [{ type: 'text', text: `confirmed=${answer.yes} state=${state}` }] };
    });
  return server;
}

if (transport === 'stdio') {
  serveStdio(factory, { legacy: second === 'reject' ? 'reject' : 'serve', onerror: (e) => console.error('server error:', e?.message) });
} else {
  const port = Number(second);
  const handler = createMcpHandler(factory, { legacy: third === 'reject' ? 'reject' : 'stateless' });
  http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
      method: req.method, headers, body: ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks) });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  }).listen(port, '127.0.0.1', () => console.log('listening'));
}
