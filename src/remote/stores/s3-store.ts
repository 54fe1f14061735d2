/**
 * An S3 location through the AWS SDK: its standard credential chain and region; an endpoint
 * (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL) for an S3-compatible store, addressed path-style.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { baseNameOf, RemoteError, type RemoteLocation } from '../location.js';
import type { RemoteEntry, RemoteSettings, RemoteStore } from './store.js';

type S3Location = Extract<RemoteLocation, { kind: 's3' }>;

/** The one line an S3 failure stands for; the SDK's own messages may quote signed requests, so they are not passed on whole. */
export function describeS3Error(error: unknown): string {
  const err = error as { name?: string; Code?: string; code?: string; $metadata?: { httpStatusCode?: number }; message?: string };
  const name = err.name ?? err.Code ?? '';
  const status = err.$metadata?.httpStatusCode;
  if (name === 'NoSuchBucket') return 'no such bucket.';
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return 'no such object.';
  if (name === 'AccessDenied' || name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch' || status === 403) return 'access denied (check the AWS credentials and the bucket policy).';
  if (name === 'CredentialsProviderError') return 'no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run on a host with a role).';
  if (/region/i.test(err.message ?? '') && /missing/i.test(err.message ?? '')) return 'no AWS region set (set AWS_REGION or a profile with a region).';
  if (err.code === 'ECONNREFUSED' || /ECONNREFUSED/.test(err.message ?? '')) return 'the connection was refused (check AWS_ENDPOINT_URL_S3).';
  if (err.code === 'ENOTFOUND' || /ENOTFOUND|EAI_AGAIN/.test(err.message ?? '')) return 'the host name does not resolve (check the bucket and AWS_ENDPOINT_URL_S3).';
  return `the S3 request failed (${name || 'error'}${status ? `, HTTP ${status}` : ''}).`;
}

export function openS3Store(location: S3Location, settings: RemoteSettings): RemoteStore {
  const client = new S3Client({
    ...(settings.s3Endpoint ? { endpoint: settings.s3Endpoint, forcePathStyle: true } : {}),
    // A flaky network: the SDK retries what it knows to be transient, a few times.
    maxAttempts: 4,
  });
  // The server's clock from each answer's Date header: LastModified is on that clock, so a file's age is counted on it.
  let serverOffsetMs: number | undefined;
  client.middlewareStack.add(
    (next) => async (args) => {
      const output = await next(args);
      const date = (output.response as { headers?: Record<string, string | undefined> }).headers?.date;
      const serverMs = date === undefined ? Number.NaN : Date.parse(date);
      if (Number.isFinite(serverMs)) serverOffsetMs = serverMs - Date.now();
      return output;
    },
    { step: 'deserialize', name: 'orderBatchServerClock' },
  );
  const Bucket = location.bucket;
  const shown = `s3://${Bucket}`;
  const fail = (key: string, error: unknown): never => {
    throw new RemoteError(`${shown}/${key}`, describeS3Error(error), { cause: error });
  };
  return {
    shown,
    async list(folder) {
      const entries: RemoteEntry[] = [];
      const Prefix = folder === '' || folder.endsWith('/') ? folder : `${folder}/`;
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix, Delimiter: '/', ContinuationToken })).catch((e: unknown) => fail(Prefix, e));
        for (const o of page.Contents ?? []) {
          if (!o.Key || o.Key.endsWith('/')) continue;
          entries.push({ name: baseNameOf(o.Key), path: o.Key, size: o.Size ?? 0, mtimeMs: o.LastModified?.getTime() ?? 0, ...(o.ETag ? { etag: o.ETag.replace(/"/g, '') } : {}) });
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { name: baseNameOf(key), path: key, size: head.ContentLength ?? 0, mtimeMs: head.LastModified?.getTime() ?? 0, ...(head.ETag ? { etag: head.ETag.replace(/"/g, '') } : {}) };
      } catch (error) {
        const err = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404) return null;
        return fail(key, error);
      }
    },
    async download(key, localFile) {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key })).catch((e: unknown) => fail(key, e));
      await pipeline(object.Body as Readable, createWriteStream(localFile, { mode: 0o600 })).catch((e: unknown) => fail(key, e));
      return statSync(localFile).size;
    },
    async upload(localFile, key) {
      // One object appears whole or not at all; Upload splits a large result into parts.
      const upload = new Upload({ client, params: { Bucket, Key: key, Body: createReadStream(localFile) } });
      await upload.done().catch((e: unknown) => fail(key, e));
    },
    async move(from, to) {
      const CopySource = `${Bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
      await client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource })).catch((e: unknown) => fail(from, e));
      await client.send(new DeleteObjectCommand({ Bucket, Key: from })).catch((e: unknown) => fail(from, e));
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key })).catch((e: unknown) => fail(key, e));
    },
    async close() {
      client.destroy();
    },
    serverClockOffsetMs: () => serverOffsetMs,
  };
}
