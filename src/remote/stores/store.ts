/** What the rest of src/remote needs of a place files live: SFTP, S3, or (read only) an HTTPS link. */

export interface RemoteEntry {
  /** The file's name within its folder. */
  name: string;
  /** Its full path (SFTP) or key (S3). */
  path: string;
  size: number;
  /** Last modified, ms since the epoch (SFTP: whole seconds). */
  mtimeMs: number;
  /** S3's ETag, when the store has one: a version's identity that a same-second rewrite cannot hide. */
  etag?: string;
}

export interface RemoteStore {
  /** The store's location, redacted, for messages. */
  readonly shown: string;
  /** The files directly in a folder (not its sub-folders). */
  list(folder: string): Promise<RemoteEntry[]>;
  /** One file's size and time, or null when it is not there. */
  stat(path: string): Promise<RemoteEntry | null>;
  /** Copies the file to a local path; returns the bytes written. */
  download(path: string, localFile: string): Promise<number>;
  /** Writes a local file to the path, whole or not at all (a temp name renamed on SFTP; one object on S3). */
  upload(localFile: string, path: string): Promise<void>;
  /** Moves a file within the store (rename on SFTP, copy then delete on S3). */
  move(from: string, to: string): Promise<void>;
  /** Deletes a file (a sheet moved away by a copy). */
  remove(path: string): Promise<void>;
  close(): Promise<void>;
  /** The server's clock minus this host's, as its last answer told it (S3's Date header); undefined where the protocol tells no time (SFTP). */
  serverClockOffsetMs?(): number | undefined;
}

/** Settings every remote location is used with, resolved in src/options.ts. */
export interface RemoteSettings {
  /** --ssh-key or ORDER_BATCH_SSH_KEY: a private key file. */
  sshKeyPath?: string;
  /** ORDER_BATCH_SSH_PASSWORD: the SFTP password (or the key's passphrase when a key is given). */
  sshPassword?: string;
  /** --known-hosts (default ~/.ssh/known_hosts). */
  knownHostsPath: string;
  /** --settle: seconds a remote file must have been left alone before it is read. */
  settleSeconds: number;
  /** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL: an S3-compatible store instead of AWS. */
  s3Endpoint?: string;
}
