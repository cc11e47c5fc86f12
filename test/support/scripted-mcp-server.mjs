// A stdio MCP server scripted by files, for what the real servers don't do on demand (issue 11):
// a definition that changes between runs, a crash mid-call, a call that never answers, a huge
// result. Plain JavaScript, so that any node can start it whatever its working directory.
//
//   SCRIPTED_MCP_TOOLS  a JSON file: [{name, description?, inputSchema, annotations?, behaviour}]
//                       read at every tools/list, so a test changes a definition by rewriting it.
//                       behaviour: "echo" (returns its arguments as text), "crash" (the process
//                       exits mid-call), "hang" (never answers), "huge:<bytes>" (that much text),
//                       "progress" (three progress notifications, then "done").
//   SCRIPTED_MCP_LOG    a file: one JSON line per call received ({tool, arguments}) and per
//                       cancellation ({cancelled: requestId}), written before it is handled.
import { appendFileSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CancelledNotificationSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const toolsFile = process.env.SCRIPTED_MCP_TOOLS;
const logFile = process.env.SCRIPTED_MCP_LOG;
if (!toolsFile) throw new Error('SCRIPTED_MCP_TOOLS must name the tools file');

const readTools = () => JSON.parse(readFileSync(toolsFile, 'utf8'));
const log = (entry) => {
  if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
};

const server = new Server({ name: 'scripted', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: readTools().map(({ name, description, inputSchema, annotations }) => ({
    name,
    description,
    inputSchema,
    ...(annotations ? { annotations } : {}),
  })),
}));

server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
  log({ cancelled: notification.params.requestId });
});

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args } = request.params;
  log({ tool: name, arguments: args ?? {} });
  const tool = readTools().find((candidate) => candidate.name === name);
  if (!tool) return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
  const behaviour = String(tool.behaviour ?? 'echo');
  if (behaviour === 'crash') {
    process.stderr.write('scripted server: crashing on purpose\n');
    process.exit(3);
  }
  if (behaviour === 'hang') return new Promise(() => undefined);
  if (behaviour.startsWith('huge:')) return { content: [{ type: 'text', text: 'x'.repeat(Number(behaviour.slice(5)) - 4) + ' END' }] };
  if (behaviour === 'progress') {
    const token = request.params._meta?.progressToken;
    for (let step = 1; step <= 3 && token !== undefined; step++) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: step, total: 3, message: `step ${step}` },
      });
      // Apart in time, as real work would be: the SDK client drops progress that arrives in the
      // same read as the result (its notification handlers run a microtask later).
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { content: [{ type: 'text', text: 'done' }] };
  }
  return { content: [{ type: 'text', text: `echo: ${JSON.stringify(args ?? {})}` }] };
});

await server.connect(new StdioServerTransport());
