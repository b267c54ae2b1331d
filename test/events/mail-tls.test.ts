/**
 * Mail over TLS (docs/mail.md): a Souk process sends through a real SMTP server that speaks TLS
 * from the start (smtps://) or offers STARTTLS on smtp://, with a certificate the process trusts
 * through NODE_EXTRA_CA_CERTS, as an operator's private CA would be. A server whose certificate it
 * does not trust gets neither the password nor the mail: the attempt fails and is retried.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { SMTP_PASSWORD, smtpReceiver, type SmtpReceiver } from '../helpers/smtp-receiver.js';
import { selfSignedCertificate } from '../helpers/tls-certificate.js';

const START = '/wp-json/rtcl/v1/my/chat/conversation';
const certificate = selfSignedCertificate();

/** A Souk process mailing through `smtp` on the in-process Souk's database (which mails nothing itself). */
async function mailingProcess(t: TestSouk, smtp: SmtpReceiver, env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({
    DATABASE_URL: t.database.url,
    SITE_URL: t.config.siteUrl,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Souk Test <noreply@souk.example>',
    MAIL_DELAY_S: '0',
    MAIL_RETRY_BASE_MS: '100',
    ...env,
  });
}

async function startConversation(t: TestSouk, server: ServerProcess, text: string): Promise<void> {
  const reply = await fetch(`${server.base}${START}`, {
    method: 'POST',
    headers: { ...t.auth(USERS.amina), 'content-type': 'application/json' },
    body: JSON.stringify({ listing_id: LISTINGS.bike, text }),
  });
  assert.equal(reply.status, 200, await reply.text());
}

const outbox = (t: TestSouk) => t.souk.store.mailOutbox!.list({ limit: 10 });

describe('mail over TLS', () => {
  for (const secure of [true, false]) {
    it(`sends through ${secure ? 'smtps:// (TLS from the start)' : 'smtp:// with STARTTLS'} to a server it trusts`, async () => {
      const smtp = await smtpReceiver({ key: certificate.key, cert: certificate.cert, secure });
      const t = await startTestSouk();
      const server = await mailingProcess(t, smtp, { NODE_EXTRA_CA_CERTS: certificate.certFile });
      await startConversation(t, server, 'over TLS?');
      await until(() => smtp.mails.length >= 1, 15_000);
      assert.equal(smtp.mails[0]!.secure, true);
      assert.match(smtp.mails[0]!.text, /over TLS\?/);
      assert.equal(smtp.state.auths, 1);
      await until(async () => (await outbox(t))[0]?.status === 'sent');
    });
  }

  it('sends neither the password nor the mail to a server whose certificate it does not trust, and retries', async () => {
    const smtp = await smtpReceiver({ key: certificate.key, cert: certificate.cert, secure: false });
    const t = await startTestSouk();
    const server = await mailingProcess(t, smtp, {});
    await startConversation(t, server, 'to an impostor?');
    await until(async () => ((await outbox(t))[0]?.attempts ?? 0) >= 2, 15_000);
    const [mail] = await outbox(t);
    assert.equal(mail!.status, 'pending');
    assert.match(mail!.lastError ?? '', /certificate/i);
    assert.doesNotMatch(mail!.lastError ?? '', new RegExp(SMTP_PASSWORD));
    assert.equal(smtp.state.auths, 0);
    assert.equal(smtp.mails.length, 0);
    assert.doesNotMatch(server.output(), new RegExp(SMTP_PASSWORD));
  });
});
