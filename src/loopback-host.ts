/** Whether an address reaches this computer only: the web app may serve alone there, and an OpenID issuer may be plain http:// there. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}
