/**
 * A self-signed certificate for 127.0.0.1 and localhost, made by the openssl command for one test
 * file: a server presents it, and a Souk process trusts it only when told to (NODE_EXTRA_CA_CERTS).
 */
import { after } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsCertificate {
  key: Buffer;
  cert: Buffer;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS. */
  certFile: string;
}

export function selfSignedCertificate(): TlsCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'souk-tls-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1']
      .concat(['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'])
      .concat(['-keyout', keyFile, '-out', certFile]),
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile };
}
