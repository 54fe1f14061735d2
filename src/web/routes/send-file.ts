/** Downloads: only files inside the work folder, by a name the route chose, never a path from the URL. */
import { createReadStream, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { AppServices } from '../services.js';
import { attachmentHeader, CONTENT_TYPES } from '../work-dir.js';

export function sendFile(services: AppServices, reply: FastifyReply, path: string, downloadName: string): FastifyReply {
  if (!services.workDir.contains(path)) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.');
  const size = statSync(path).size;
  return reply
    .code(200)
    .type(CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream')
    .header('content-length', size)
    .header('content-disposition', attachmentHeader(downloadName))
    .header('cache-control', 'no-store')
    .send(createReadStream(path));
}
