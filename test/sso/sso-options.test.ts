import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/options.js';

const NOW = new Date('2030-01-01T00:00:00Z');
const CLIENT = { ORDER_BATCH_OIDC_CLIENT_ID: 'order-batch', ORDER_BATCH_OIDC_CLIENT_SECRET: 'secret' };

describe('the company login options', () => {
  it('takes the issuer with the client from the environment, viewer by default', () => {
    expect(resolveOptions({ oidcIssuer: 'https://login.example.com' }, CLIENT, NOW).oidc).toEqual({
      issuer: 'https://login.example.com',
      clientId: 'order-batch',
      clientSecret: 'secret',
      defaultRole: 'viewer',
      isOnly: false,
      groupRoles: {},
    });
    expect(resolveOptions({}, CLIENT, NOW).oidc).toBeUndefined();
  });

  it('refuses an issuer without the client, a plain http:// issuer elsewhere than this computer, and an unknown default role', () => {
    expect(() => resolveOptions({ oidcIssuer: 'https://login.example.com' }, {}, NOW)).toThrow(/ORDER_BATCH_OIDC_CLIENT_ID/);
    expect(() => resolveOptions({ oidcIssuer: 'http://login.example.com' }, CLIENT, NOW)).toThrow(/https:\/\//);
    expect(resolveOptions({ oidcIssuer: 'http://127.0.0.1:4000' }, CLIENT, NOW).oidc?.issuer).toBe('http://127.0.0.1:4000');
    expect(() => resolveOptions({ oidcIssuer: 'https://login.example.com', oidcDefaultRole: 'admin' }, CLIENT, NOW)).toThrow(/viewer, operator or none/);
    expect(() => resolveOptions({ oidcOnly: true }, CLIENT, NOW)).toThrow(/--oidc-issuer/);
  });

  it('never quotes the client secret in a message', () => {
    expect.assertions(1);
    try {
      resolveOptions({ oidcIssuer: 'ftp://x', oidcDefaultRole: 'admin' }, { ...CLIENT, ORDER_BATCH_OIDC_CLIENT_SECRET: 'do-not-show' }, NOW);
    } catch (error) {
      expect(String(error)).not.toContain('do-not-show');
    }
  });
});
