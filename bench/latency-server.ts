/**
 * A bare node:http server that waits `latencyMs` after each request's body and answers 201 with a
 * fixed JSON body: what HTTP round trips with that latency cost on this machine, with no API
 * behind them. Run as its own process (`node dist-bench/bench/latency-server.js <latencyMs>`), like the
 * sandbox in the import bench; it prints `listening <url>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const BODY = JSON.stringify({ data: { orderDetails: { customerOrderId: 'fixed' } }, requestId: '00000000-0000-0000-0000-000000000000' });

export function serveWithLatency(latencyMs: number): void {
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      setTimeout(() => {
        res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(BODY) });
        res.end(BODY);
      }, latencyMs);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serveWithLatency(Number(process.argv[2] ?? 20));
