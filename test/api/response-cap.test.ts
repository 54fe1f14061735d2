import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpTransport } from '../../src/api/http.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** An answer just over 32 MB: past the cap of ordinary answers, within that of large ones. */
const BIG = Buffer.alloc(33 * 1024 * 1024, 'x');

async function serveBig(): Promise<string> {
  server = createServer((_req, res) => res.end(BIG));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the answer size caps', () => {
  it('refuses an ordinary answer over 32 MB as response_too_large but reads it when a large answer is expected', async () => {
    const transport = createHttpTransport({ baseUrl: await serveBig(), timeoutMs: 10_000, connections: 1 });
    try {
      await expect(transport.send({ method: 'GET', path: '/x', stage: 'request' })).rejects.toMatchObject({ code: 'response_too_large', isSent: true });
      const reply = await transport.send({ method: 'GET', path: '/x', stage: 'request', isLargeAnswer: true });
      expect(reply.text.length).toBe(BIG.length);
    } finally {
      await transport.close();
    }
  });
});
