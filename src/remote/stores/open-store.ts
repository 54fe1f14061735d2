/** Opening the store of a location, one connection per server or bucket for a whole run. */
import { RemoteError, type RemoteLocation } from '../location.js';
import type { RemoteSettings, RemoteStore } from './store.js';

export type OpenStore = (location: Exclude<RemoteLocation, { kind: 'http' }>) => Promise<RemoteStore>;

/** A store per server (user, host and port) or bucket, opened on first use and closed together. */
export function createStorePool(settings: RemoteSettings): { open: OpenStore; closeAll(): Promise<void> } {
  const stores = new Map<string, Promise<RemoteStore>>();
  return {
    open(location) {
      const key = location.kind === 'sftp' ? `sftp:${location.user}@${location.host}:${location.port}` : `s3:${location.bucket}`;
      let store = stores.get(key);
      if (!store) {
        store = location.kind === 'sftp'
          ? import('./sftp-store.js').then((m) => m.openSftpStore(location, settings))
          : import('./s3-store.js').then((m) => m.openS3Store(location, settings));
        stores.set(key, store);
      }
      return store;
    },
    async closeAll() {
      for (const store of stores.values()) await store.then((s) => s.close()).catch(() => undefined);
      stores.clear();
    },
  };
}

/** Reads an https:// (or loopback http://) sheet into a local file; returns its bytes and what identifies this version. */
export async function fetchHttp(location: Extract<RemoteLocation, { kind: 'http' }>, localFile: string): Promise<{ bytes: number; version: string }> {
  const { createWriteStream } = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const { Readable } = await import('node:stream');
  let response: Response;
  try {
    response = await fetch(location.url, { redirect: 'follow' });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    const reason = code === 'ECONNREFUSED' ? 'the connection was refused' : code === 'ENOTFOUND' ? 'the host name does not resolve' : `it could not be reached (${code ?? 'network error'})`;
    throw new RemoteError(location.shown, `${reason}.`, { cause: error });
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    const why = response.status === 404 ? 'not found (HTTP 404)' : response.status === 403 ? 'access denied (HTTP 403; a presigned link may have expired)' : `the server answered HTTP ${response.status}`;
    throw new RemoteError(location.shown, `${why}.`);
  }
  const expected = response.headers.get('content-length');
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(localFile, { mode: 0o600 }));
  const { statSync } = await import('node:fs');
  const bytes = statSync(localFile).size;
  if (expected !== null && Number(expected) !== bytes) throw new RemoteError(location.shown, `the download broke off (${bytes} of ${expected} bytes).`);
  const version = response.headers.get('etag') ?? response.headers.get('last-modified') ?? `${bytes}`;
  return { bytes, version };
}
