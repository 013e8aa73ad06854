import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { SessionHandle, ToolsService } from 'dsh-host'
import { createToolServer } from '../../packages/mcp/src/mcp-server.js'

/** An MCP client connected in memory to the tool server over this registry, every call admitted into one session. */
export async function connectInMemory(tools: ToolsService, session: SessionHandle, name: string): Promise<Client> {
  const server = createToolServer({ tools, log: () => {}, admit: async () => ({ session, done: () => {} }) })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name, version: '0.0.0' })
  await client.connect(clientSide)
  return client
}
