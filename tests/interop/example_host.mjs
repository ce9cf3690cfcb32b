// An MCP host on the official v2 client, for examples/mcp_server: lists the tools, reads a file in
// the workspace and one outside it, prints one JSON line.
//   node example_host.mjs MODE SERVER_COMMAND WORKSPACE     (MODE: legacy | auto)
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [mode, command, workspace] = process.argv.slice(2);
const client = new Client({ name: 'host', version: '1' }, { versionNegotiation: { mode } });
await client.connect(new StdioClientTransport({ command, args: ['--workspace', workspace] }));
const tools = (await client.listTools()).tools.map((t) => t.name);
const read = await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } });
const outside = await client.callTool({ name: 'read_file', arguments: { path: '/etc/hostname' } });
console.log(JSON.stringify({ version: client.getNegotiatedProtocolVersion(), tools, read: read.content[0].text,
  outside: outside.isError === true }));
await client.close();
