/**
 * sslmode in a PostgreSQL ledger URL: read as libpq reads it, with no raw process warning from
 * node-postgres, and a mode that leaves the server's certificate unchecked said in plain words.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openLedger } from '../../src/ledger/index.js';
import { connectionConfigOf } from '../../src/ledger/postgres/connection-config.js';
import type { Logger } from '../../src/log.js';
import { useTempFolders } from '../support/temp-dir.js';

const URL_BASE = 'postgres://ob:s3cret@db.example:5432/orders';
const newDir = useTempFolders('ssl');

describe('the ledger URL\'s sslmode', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads require as libpq does: encrypted, the certificate unchecked, and says so', () => {
    const { config, weakness } = connectionConfigOf(`${URL_BASE}?sslmode=require`, 'db.example/orders');
    expect(config).toMatchObject({ host: 'db.example', port: 5432, database: 'orders', user: 'ob', ssl: { rejectUnauthorized: false } });
    expect(config).not.toHaveProperty('sslmode');
    expect(weakness).toBe("The ledger URL db.example/orders has sslmode=require: the connection is encrypted, but the server's certificate is not checked, so a machine between this one and the server could pose as it; use sslmode=verify-full (with sslrootcert=<file> when the server's certificate is not from a public authority) to check it.");
  });

  it('checks the certificate and host name for verify-full, says nothing, and turns SSL off for disable', () => {
    const full = connectionConfigOf(`${URL_BASE}?sslmode=verify-full`, 'x');
    expect(full.config.ssl).toEqual({});
    expect(full.weakness).toBeUndefined();
    expect(connectionConfigOf(`${URL_BASE}?sslmode=disable`, 'x').config.ssl).toBe(false);
    expect(connectionConfigOf(URL_BASE, 'x').config.ssl).toBeUndefined();
  });

  it('reads verify-ca against the given authority without the host name, and says the host is not checked', () => {
    const dir = newDir();
    writeFileSync(join(dir, 'ca.pem'), 'CERT');
    const { config, weakness } = connectionConfigOf(`${URL_BASE}?sslmode=verify-ca&sslrootcert=${join(dir, 'ca.pem')}`, 'x');
    expect(config.ssl).toMatchObject({ ca: 'CERT', checkServerIdentity: expect.any(Function) });
    expect(weakness).toContain('not that it was issued for this host name');
  });

  it('refuses a mode it does not know, verify-ca without an authority, and an unreadable certificate file, in plain words', () => {
    expect(() => connectionConfigOf(`${URL_BASE}?sslmode=requir`, 'loc')).toThrow('The ledger URL loc has sslmode=requir: use one of disable, allow, prefer, require, verify-ca, verify-full.');
    expect(() => connectionConfigOf(`${URL_BASE}?sslmode=verify-ca`, 'loc')).toThrow('has sslmode=verify-ca but no sslrootcert');
    expect(() => connectionConfigOf(`${URL_BASE}?sslmode=verify-full&sslrootcert=/no/such/ca.pem`, 'loc')).toThrow('The ledger URL loc cannot be used: a file it names does not exist.');
  });

  it('prints no process warning when a ledger is opened with sslmode=require; the warning is the logger\'s, in our words', async () => {
    const emitted = vi.spyOn(process, 'emitWarning');
    const warnings: string[] = [];
    const logger = { warn: (_: unknown, message: string) => warnings.push(message), info: () => undefined, debug: () => undefined, error: () => undefined } as unknown as Logger;
    // Port 1 on this machine refuses at once: the URL is read, the connection fails, nothing else is needed.
    await expect(openLedger('postgres://ob:s3cret@127.0.0.1:1/orders?sslmode=require', { logger })).rejects.toThrow();
    expect(emitted).not.toHaveBeenCalled();
    expect(warnings).toEqual([expect.stringContaining("sslmode=require: the connection is encrypted, but the server's certificate is not checked")]);
    expect(warnings.join('')).not.toContain('s3cret');
  });
});
