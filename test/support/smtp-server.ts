/**
 * A real SMTP server (the smtp-server package) on 127.0.0.1 and a free port, keeping every mail it
 * receives parsed with mailparser. It takes any login and offers no STARTTLS (its certificate would be
 * a self-signed one the client rightly refuses).
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtpServer {
  /** smtp://user:password@127.0.0.1:port */
  url: string;
  mails: ParsedMail[];
  /** The envelope recipients of each mail, in order. */
  recipients: string[][];
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const mails: ParsedMail[] = [];
  const recipients: string[][] = [];
  const server = new SMTPServer({
    hideSTARTTLS: true,
    authOptional: true,
    allowInsecureAuth: true,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'test' }),
    onData: (stream, session, callback) => {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          recipients.push(session.envelope.rcptTo.map((r) => r.address));
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://robot%40example.com:secret-password@127.0.0.1:${port}`,
    mails,
    recipients,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
