/**
 * With --mail: a local SMTP server (smtp-server) that accepts and drops every mail, and the
 * settings that turn Souk's mail on against it, so that the rows measure a Souk that queues a
 * mail for each new message (docs/mail.md) as an operator's with SMTP_URL set does.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface MailSink {
  /** SMTP_URL and MAIL_FROM for each Souk. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startMailSink(): Promise<MailSink> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => callback());
    },
  });
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port } = server.server.address() as AddressInfo;
  return {
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Souk bench <bench@souk.example>' },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
