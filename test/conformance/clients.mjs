// Connects the TypeScript SDK's clients to the server at the URL given and
// checks that each lists the thirteen tools and calls read_query, in the
// protocol revision it should negotiate: SDK 1.x (@modelcontextprotocol/sdk,
// initialize and a session), SDK 2.x (@modelcontextprotocol/client) with its
// defaults (initialize and a session) and pinned to 2026-07-28
// (server/discover, no session). run.sh installs both and runs this.
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client';

const url = new URL(process.argv[2]);
const failures = [];

async function check(name, want, connect) {
  try {
    const { client, version, session } = await connect();
    const { tools } = await client.listTools();
    const res = await client.callTool({ name: 'read_query', arguments: { query: 'SELECT 41 + 1 AS answer' } });
    const text = res.content.map((c) => c.text ?? '').join('');
    const problems = [];
    if (version() !== want) problems.push(`negotiated ${version()}, want ${want}`);
    const wantTools = Number(process.env.WANT_TOOLS);
    if (tools.length !== wantTools) problems.push(`listed ${tools.length} tools, want ${wantTools} (WANT_TOOLS)`);
    if (res.isError || !text.includes('42')) problems.push(`read_query answered ${JSON.stringify(text)}`);
    if ((want < '2026-07-28') !== Boolean(session())) problems.push(`session id ${JSON.stringify(session())} is wrong for ${want}`);
    await client.close();
    if (problems.length) throw new Error(problems.join('; '));
    console.log(`clients: ${name}: ${want}, ${tools.length} tools, read_query ok`);
  } catch (err) {
    failures.push(`${name}: ${err.message}`);
  }
}

await check('TypeScript SDK 1.x', '2025-11-25', async () => {
  const client = new Client1({ name: 'ts-sdk-1', version: '1' });
  const transport = new Transport1(url);
  await client.connect(transport);
  return { client, version: () => transport.protocolVersion, session: () => transport.sessionId };
});

await check('TypeScript SDK 2.x (defaults)', '2025-11-25', async () => {
  const client = new Client2({ name: 'ts-sdk-2', version: '2' });
  const transport = new Transport2(url);
  await client.connect(transport);
  return { client, version: () => client.getNegotiatedProtocolVersion(), session: () => transport.sessionId };
});

await check('TypeScript SDK 2.x (2026-07-28)', '2026-07-28', async () => {
  // Pinned: a client that speaks 2026-07-28 only, with no fallback.
  const client = new Client2({ name: 'ts-sdk-2-modern', version: '2' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const transport = new Transport2(url);
  await client.connect(transport);
  return { client, version: () => client.getNegotiatedProtocolVersion(), session: () => transport.sessionId };
});

if (failures.length) {
  for (const f of failures) console.error(`clients: FAIL ${f}`);
  process.exit(1);
}
