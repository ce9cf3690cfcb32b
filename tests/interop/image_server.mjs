// A stdio MCP server on the official TypeScript SDK (@modelcontextprotocol/sdk, v1 API) whose one
// tool returns a screenshot-like PNG as MCP image content, the way screen-capture and browser
// servers do: the agent's tool path must normalise what it returns.
//   node image_server.mjs
// Tool: screenshot {width, height} -> a text block and an opaque RGB PNG of that size.
import { deflateSync } from 'node:zlib';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
// Bands of colour with a diagonal stripe: a picture with structure, as a screenshot has.
function png(width, height) {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const p = row + 1 + x * 3;
      raw[p] = (x * 255 / width) | 0;
      raw[p + 1] = (y * 255 / height) | 0;
      raw[p + 2] = (x + y) % 64 < 8 ? 255 : 0;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;  // bit depth
  ihdr[9] = 2;  // RGB
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const server = new McpServer({ name: 'image-fixture', version: '0.0.1' });
server.registerTool('screenshot', {
  description: 'Captures a screenshot of the given size',
  inputSchema: { width: z.number().int().positive(), height: z.number().int().positive() },
}, async ({ width, height }) => ({
  content: [
    { type: 'text', text: `screenshot ${width}x${height}` },
    { type: 'image', data: png(width, height).toString('base64'), mimeType: 'image/png' },
  ],
}));
await server.connect(new StdioServerTransport());
