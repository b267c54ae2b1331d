/**
 * Mail leaves through nodemailer's SMTP transport, over SMTP_URL: `smtp://` (STARTTLS when the
 * server offers it; `?requireTLS=true` insists), `smtps://` (TLS from the start), with the user
 * and password in the address when the server wants them. Its errors carry the server's answer,
 * never the password.
 */
import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export function smtpTransport(url: string, timeoutMs: number): MailTransport {
  const transport = createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // One connection at a time per instance, reused while mails wait.
    pool: true,
    maxConnections: 1,
  } as Parameters<typeof createTransport>[0]);
  return {
    async send(mail) {
      await transport.sendMail(mail);
    },
    close: () => transport.close(),
  };
}
