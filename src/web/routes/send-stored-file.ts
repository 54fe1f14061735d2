/** Downloads of a file kept in the ledger's file store (a scheduled run's result), streamed piece by piece. */
import { Readable } from 'node:stream';
import { extname } from 'node:path';
import type { FastifyReply } from 'fastify';
import { attachmentHeader, CONTENT_TYPES } from '../work-dir.js';

export function sendStoredFile(reply: FastifyReply, pieces: AsyncIterable<Uint8Array>, downloadName: string): FastifyReply {
  return reply
    .code(200)
    .type(CONTENT_TYPES[extname(downloadName).toLowerCase()] ?? 'application/octet-stream')
    .header('content-disposition', attachmentHeader(downloadName))
    .header('cache-control', 'no-store')
    .send(Readable.from(pieces));
}
