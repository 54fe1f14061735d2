/**
 * Remote locations (PRODUCT.md section 9): `sftp://user@host[:port]/path`, `s3://bucket/prefix/` and,
 * to read one sheet, `https://…`. Parsed with the WHATWG URL; shown only redacted, since a presigned
 * S3 or HTTPS query string is a credential and a password never belongs in a URL.
 */
import { InputError, UsageError } from '../errors.js';

export type RemoteLocation =
  | { kind: 'sftp'; user: string; host: string; port: number; path: string; shown: string; isFolder: boolean }
  | { kind: 's3'; bucket: string; key: string; shown: string; isFolder: boolean }
  | { kind: 'http'; url: string; shown: string; isFolder: false };

const REMOTE_SCHEME = /^(sftp|s3|https?):\/\//i;

/** True when the argument names a remote location rather than a local path. */
export function isRemote(text: string): boolean {
  return REMOTE_SCHEME.test(text);
}

/** The location fit to print: no password, no query string, no fragment. */
export function redactLocation(text: string): string {
  try {
    const url = new URL(text);
    url.password = '';
    const query = url.search === '' ? '' : '?…';
    url.search = '';
    url.hash = '';
    return `${url.toString()}${query}`;
  } catch {
    return text.replace(/\/\/[^/@]*@/, '//***@').replace(/[?#].*$/, '?…');
  }
}

/** A folder is named with a trailing slash, or by a path with no sheet or result extension. */
function isFolderPath(path: string): boolean {
  return path === '' || path.endsWith('/') || !/\.(csv|xlsx|xlsm|txt|tsv|xls|ods)$/i.test(path);
}

/**
 * Reads a remote location. `isLoopbackHttpAllowed`: plain http:// is refused (a sheet of customers'
 * addresses in clear) except to 127.0.0.1 / localhost, where nothing crosses a network.
 */
export function parseRemoteLocation(text: string): RemoteLocation {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${redactLocation(text)} is not a valid address: write sftp://user@host[:port]/path, s3://bucket/prefix/ or https://host/sheet.csv.`);
  }
  const shown = redactLocation(text);
  if (url.password !== '') {
    throw new UsageError(`${shown}: a password in the address is refused (it would show in process lists and logs); set ORDER_BATCH_SSH_PASSWORD, or use --ssh-key.`);
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'sftp') {
    if (url.username === '' || url.hostname === '') throw new UsageError(`${shown}: write sftp://user@host[:port]/path (the user and host are needed).`);
    const path = decodeURIComponent(url.pathname) || '/';
    return { kind: 'sftp', user: decodeURIComponent(url.username), host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port === '' ? 22 : Number(url.port), path, shown, isFolder: isFolderPath(path) };
  }
  if (scheme === 's3') {
    if (url.hostname === '') throw new UsageError(`${shown}: write s3://bucket/prefix/ (the bucket is needed).`);
    const key = decodeURIComponent(url.pathname).replace(/^\//, '');
    return { kind: 's3', bucket: url.hostname, key, shown, isFolder: isFolderPath(key) };
  }
  if (scheme === 'http' && !isLoopback(url.hostname)) {
    throw new UsageError(`${shown}: plain http:// is taken only from this machine (127.0.0.1, localhost); use https://.`);
  }
  if (url.username !== '') throw new UsageError(`${shown}: a user in an https:// address is not supported; use a presigned link.`);
  return { kind: 'http', url: url.toString(), shown, isFolder: false };
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

/** A location a command can only read (https://) named where something is written. */
export function requireWritable(location: RemoteLocation, flag: string): void {
  if (location.kind === 'http') throw new UsageError(`${flag} ${location.shown}: an https:// address can only be read; write to a folder, sftp:// or s3://.`);
}

/** One clear line for a location that cannot be used (exit 2). */
export class RemoteError extends InputError {
  constructor(location: string, reason: string, options?: { cause?: unknown }) {
    super(location, 'unreadable_file', `${location}: ${reason}`, options);
  }
}

/** The last part of a remote path or key. */
export function baseNameOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** A child of a folder location, as a location text (for messages and claims). */
export function childText(location: RemoteLocation, name: string): string {
  if (location.kind === 'sftp') return `sftp://${location.user}@${location.host}${location.port === 22 ? '' : `:${location.port}`}${joinPath(location.path, name)}`;
  if (location.kind === 's3') return `s3://${location.bucket}/${joinPath(location.key, name).replace(/^\//, '')}`;
  return location.url;
}

export function joinPath(folder: string, name: string): string {
  if (folder === '') return name;
  return folder.endsWith('/') ? `${folder}${name}` : `${folder}/${name}`;
}
