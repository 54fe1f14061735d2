/**
 * Secrets inside addresses: a password in a URL's userinfo (`https://user:pass@host`,
 * `postgres://ob:pw@db/ledger`) or in a query parameter (`?password=`). Every address the tool shows,
 * logs or stores (the ledger's, FULFILLMENT_BASE_URL) goes through redactUrl; a message that may
 * quote one goes through redactUrlsIn. Plain text, not a URL parser: a socket URL with an empty host
 * (`postgresql://ob:pw@/ledger?host=/run/postgresql`) or a malformed one is redacted all the same.
 */

/** scheme://, then userinfo up to the last '@' before the path, query or fragment. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;
const SECRET_PARAMETER = /([?&;](?:password|passwd|pass|pwd|sslpassword|secret|client_secret|token|access_token)=)[^&#;\s]*/gi;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

/** The address fit to show: the password and secret-looking query values replaced by `***`. Anything else stays as written. */
export function redactUrl(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  let shown = text.replace(USERINFO, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
  });
  // `user:pa/ss@host`: a raw '/' in a password puts the '@' after it. Unless what follows the ':'
  // is a port (`host:8443/a@b`), hide all of it rather than guess where the password ends.
  const malformed = /^([a-z][a-z0-9+.-]*:\/\/)[^:/?#@]*:([^/?#@]*)[/?#][^@]*@/i.exec(text);
  if (shown === text && malformed && !/^\d*$/.test(malformed[2]!)) {
    shown = text.replace(/^([a-z][a-z0-9+.-]*:\/\/)(.*)@/i, '$1***@');
  }
  return shown.replace(SECRET_PARAMETER, '$1***');
}

/** Every URL quoted in a message, redacted. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}
