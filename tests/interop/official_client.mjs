// Drives an MCP server with an official TypeScript client and prints what happened as one JSON line.
//   node official_client.mjs SDK MODE TRANSPORT TARGET...
//   SDK: v1 (@modelcontextprotocol/sdk) | v2 (@modelcontextprotocol/client)
//   MODE: legacy | auto | pin (v2 only; v1 is always legacy)
//   TRANSPORT: stdio COMMAND ARGS... | http URL API_KEY
// Exercises: connect, tools/list, tools/call (echo, add), a call that needs an elicitation answer,
// resources/read through a template, prompts/get, a prompt and a resource that ask for input
// first, ping (legacy), and what an unknown tool gives.
const [sdk, mode, transport, ...target] = process.argv.slice(2);

// The user's answer: a topic when asked for one (ask_topic, x://ask/topic), else "yes".
const elicit = async (request) => (request?.params?.message === 'Which topic?'
  ? { action: 'accept', content: { topic: 'owls' } }
  : { action: 'accept', content: { yes: true } });

async function load() {
  if (sdk === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const client = new Client({ name: 'official-v1', version: '1.32.2' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, elicit);
    return { client, StdioClientTransport, StreamableHTTPClientTransport };
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const negotiation = mode === 'pin' ? { mode: { pin: '2026-07-28' } } : { mode };
  const client = new Client({ name: 'official-v2', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: negotiation });
  client.setRequestHandler('elicitation/create', elicit);
  return { client, StdioClientTransport, StreamableHTTPClientTransport };
}

const out = { sdk, mode, transport };
try {
  const { client, StdioClientTransport, StreamableHTTPClientTransport } = await load();
  const t = transport === 'stdio'
    ? new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(target[0]), { requestInit: { headers: { Authorization: `Bearer ${target[1]}` } } });
  await client.connect(t);
  out.version = client.getNegotiatedProtocolVersion?.() ?? null;
  out.server = client.getServerVersion?.()?.name ?? null;
  const tools = await client.listTools();
  out.tools = tools.tools.map((x) => x.name);
  out.echo = (await client.callTool({ name: 'echo', arguments: { message: 'hello' } })).content[0].text;
  out.add = (await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).content[0].text;
  out.confirm = (await client.callTool({ name: 'confirm', arguments: {} })).content[0].text;
  const read = await client.readResource({ uri: 'x://items/7' });
  out.resource = read.contents[0].text;
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  out.prompt = prompt.messages[0].content.text;
  // Modern: input_required answered by the SDK's driver; legacy: our server asks the client.
  out.asking_prompt = (await client.getPrompt({ name: 'ask_topic' })).messages[0].content.text;
  out.asking_read = (await client.readResource({ uri: 'x://ask/topic' })).contents[0].text;
  if (!String(out.version).startsWith('2026')) {
    await client.ping();
    out.ping = true;
  }
  try {
    const r = await client.callTool({ name: 'no_such_tool', arguments: {} });
    out.unknown = r.isError ? 'isError' : 'ok';
  } catch (e) {
    out.unknown = `error ${e?.code ?? ''}`.trim();
  }
  await client.close();
  out.ok = true;
} catch (e) {
  out.ok = false;
  out.error = `${e?.name}: ${e?.message}`;
}
console.log(JSON.stringify(out));
process.exit(0);
