// The official v2 TypeScript client timing tools/call round trips against a stdio server, for
// tests/bench/mcp_bench.cpp (a neutral client to compare servers with).
//   node bench_client.mjs MODE CALLS COMMAND ARGS...     (MODE: legacy | auto)
// Prints {"calls":N,"seconds":S} after a warm-up.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, calls, command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode } });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const call = () => client.callTool({ name: 'echo', arguments: { message: 'ping' } });
for (let i = 0; i < 200; ++i) await call();
const n = Number(calls);
const start = process.hrtime.bigint();
for (let i = 0; i < n; ++i) await call();
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(JSON.stringify({ calls: n, seconds }));
await client.close();
