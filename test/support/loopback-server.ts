/**
 * The part every scripted model server shares: a real HTTP server on 127.0.0.1 (a free port)
 * whose handler failures become recorded violations instead of hanging the client.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>/v1`, as model clients are configured. */
  readonly baseUrl: string;
  readonly close: () => Promise<void>;
}

export async function listenOnLoopback(
  handle: (incoming: IncomingMessage, response: ServerResponse) => Promise<void>,
  violations: string[],
): Promise<LoopbackServer> {
  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      violations.push(`server failure: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
