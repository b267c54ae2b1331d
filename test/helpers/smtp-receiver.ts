/**
 * A real SMTP server for the mail tests (smtp-server, by nodemailer's authors), on 127.0.0.1: it
 * keeps what it was sent, parsed enough to read (headers, the text and HTML parts), and can
 * refuse for a while. AUTH PLAIN/LOGIN with one user. Without `tls`, no STARTTLS (smtp:// without
 * TLS); with it, TLS from the start (smtps://) or STARTTLS offered, and AUTH only once the
 * connection is encrypted.
 */
import { after } from 'node:test';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
  raw: string;
  /** Whether it came over TLS (from the start or after STARTTLS). */
  secure: boolean;
}

export interface SmtpReceiver {
  /** smtp://user:password@127.0.0.1:PORT (smtps:// for TLS from the start) */
  url: string;
  mails: ReceivedMail[];
  /** While true, every mail is refused with 451 (a temporary failure). */
  state: { refuse: boolean; refused: number; auths: number };
  close(): Promise<void>;
}

export const SMTP_USER = 'souk';
export const SMTP_PASSWORD = 'smtp-secret-password';

function unfoldHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return headers;
}

function decode(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => `%${h}`);
    return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/gi, '%25'));
  }
  return body;
}

/** RFC 2047 words (=?UTF-8?Q?...?= or ?B?), as nodemailer writes a subject that is not ASCII. */
function decodeWords(text: string): string {
  return text.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decode(data.replace(/_/g, ' '), 'quoted-printable'),
  );
}

function split(raw: string): { headers: Map<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  return { headers: unfoldHeaders(raw.slice(0, at)), body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

export function parseMail(raw: string, from: string, to: string[], secure = false): ReceivedMail {
  const { headers, body } = split(raw);
  const mail: ReceivedMail = { from, to, headers, subject: decodeWords(headers.get('subject') ?? ''), text: '', html: '', raw, secure };
  const boundary = /boundary="?([^";]+)"?/i.exec(headers.get('content-type') ?? '')?.[1];
  const parts = boundary ? body.split(`--${boundary}`).slice(1, -1) : [raw];
  for (const part of parts) {
    const p = split(part.replace(/^\r?\n/, ''));
    const type = p.headers.get('content-type') ?? '';
    const content = decode(p.body.replace(/\r?\n$/, ''), p.headers.get('content-transfer-encoding'));
    if (type.startsWith('text/plain')) mail.text = content;
    if (type.startsWith('text/html')) mail.html = content;
  }
  return mail;
}

export interface ReceiverTls {
  key: Buffer;
  cert: Buffer;
  /** TLS from the start (smtps://); else STARTTLS is offered on a plain connection. */
  secure: boolean;
}

export async function smtpReceiver(tls?: ReceiverTls): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const state = { refuse: false, refused: 0, auths: 0 };
  const server = new SMTPServer({
    ...(tls ? { key: tls.key, cert: tls.cert, secure: tls.secure } : { disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    // Pooled client connections stay open until Souk closes: do not wait 30 s for them.
    closeTimeout: 50,
    onAuth(auth, _session, callback) {
      state.auths++;
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (state.refuse) {
          state.refused++;
          const err = new Error('Try again later') as Error & { responseCode: number };
          err.responseCode = 451;
          callback(err);
          return;
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        mails.push(
          parseMail(
            Buffer.concat(chunks).toString('utf8'),
            from,
            session.envelope.rcptTo.map((r) => r.address),
            session.secure,
          ),
        );
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  after(close);
  const scheme = tls?.secure ? 'smtps' : 'smtp';
  return { url: `${scheme}://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`, mails, state, close };
}
