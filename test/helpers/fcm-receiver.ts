/**
 * Google's OAuth token endpoint and FCM HTTP v1 for tests: one real local HTTP server standing in
 * for both, with a service account whose key pair is made here. The token endpoint checks the
 * JWT-bearer assertion as Google does (RS256 signature by the account's public key, issuer,
 * audience, scope, times) and hands out access tokens; the send endpoint takes only those, and
 * answers as FCM does: 200 with the message's name, `UNREGISTERED` 404, `INVALID_ARGUMENT` 400,
 * 429 `QUOTA_EXCEEDED` with Retry-After, 503 `UNAVAILABLE`.
 */
import { after } from 'node:test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';

export const PROJECT_ID = 'souk-test-project';
const CLIENT_EMAIL = 'souk-push@souk-test-project.iam.gserviceaccount.com';
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

export interface FcmMessage {
  token: string;
  notification: { title: string; body: string };
  data: { url: string };
  android?: unknown;
  apns?: unknown;
}

/** An FCM registration token of the form Firebase issues (`<instance id>:APA91b...`). */
export const fcmToken = (name: string) => `${name.padEnd(11, 'x').slice(0, 22)}:APA91b${name.padEnd(134, '0')}`;

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(body));

const fcmError = (res: ServerResponse, status: number, statusName: string, errorCode: string, headers: Record<string, string> = {}) =>
  json(
    res,
    status,
    {
      error: {
        code: status,
        message: `${statusName} (test)`,
        status: statusName,
        details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }],
      },
    },
    headers,
  );

/** The claims of an RS256 JWT whose signature `publicKey` verifies, or why not. */
function verifiedClaims(jwt: string, publicKey: string): Record<string, unknown> | string {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'not a JWT';
  const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString()) as { alg?: string; typ?: string; kid?: string };
  if (header.alg !== 'RS256') return `alg ${header.alg}`;
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${parts[0]}.${parts[1]}`);
  if (!verifier.verify(publicKey, Buffer.from(parts[2]!, 'base64url'))) return 'bad signature';
  return { ...(JSON.parse(Buffer.from(parts[1]!, 'base64url').toString()) as Record<string, unknown>), kid: header.kid };
}

export async function fcmReceiver(options: { expiresInS?: number } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const state = {
    mode: 'ok' as 'ok' | 'down' | 'throttled',
    retryAfterS: 1,
    expiresInS: options.expiresInS ?? 3600,
    unregistered: new Set<string>(),
    invalid: new Set<string>(),
    /** Sends answered 503 or 429. */
    refused: 0,
    /** Answered 429 once each: the first push to them is throttled, the next taken. */
    throttleOnce: new Set<string>(),
  };
  const tokenRequests: { at: number; claims: Record<string, unknown> }[] = [];
  const sends: { at: number; authorization: string | undefined; message: FcmMessage }[] = [];
  const issued = new Set<string>();
  const refusedAssertions: string[] = [];
  let base = '';

  const onToken = (body: string, res: ServerResponse) => {
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return json(res, 400, { error: 'unsupported_grant_type' });
    const claims = verifiedClaims(form.get('assertion') ?? '', publicKey);
    const now = Math.floor(Date.now() / 1000);
    const problem =
      typeof claims === 'string'
        ? claims
        : claims.iss !== CLIENT_EMAIL
          ? 'iss'
          : claims.aud !== `${base}/token`
            ? 'aud'
            : claims.scope !== SCOPE
              ? 'scope'
              : typeof claims.iat !== 'number' || Math.abs(claims.iat - now) > 60
                ? 'iat'
                : typeof claims.exp !== 'number' || claims.exp - claims.iat > 3600 || claims.exp <= now
                  ? 'exp'
                  : undefined;
    if (problem !== undefined) {
      refusedAssertions.push(problem);
      return json(res, 400, { error: 'invalid_grant', error_description: `Invalid JWT: ${problem}` });
    }
    tokenRequests.push({ at: Date.now(), claims: claims as Record<string, unknown> });
    const accessToken = `ya29.test-${randomBytes(12).toString('hex')}`;
    issued.add(accessToken);
    json(res, 200, { access_token: accessToken, expires_in: state.expiresInS, token_type: 'Bearer' });
  };

  const onSend = (req: IncomingMessage, body: string, res: ServerResponse) => {
    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    if (bearer === undefined || !issued.has(bearer)) return fcmError(res, 401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR');
    const { message } = JSON.parse(body) as { message: FcmMessage };
    if (state.mode === 'down') {
      state.refused++;
      return fcmError(res, 503, 'UNAVAILABLE', 'UNAVAILABLE');
    }
    if (state.mode === 'throttled' || state.throttleOnce.delete(message.token)) {
      state.refused++;
      return fcmError(res, 429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED', { 'retry-after': String(state.retryAfterS) });
    }
    if (state.unregistered.has(message.token)) return fcmError(res, 404, 'NOT_FOUND', 'UNREGISTERED');
    if (state.invalid.has(message.token)) return fcmError(res, 400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT');
    sends.push({ at: Date.now(), authorization: bearer, message });
    json(res, 200, { name: `projects/${PROJECT_ID}/messages/${sends.length}` });
  };

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/token') return onToken(body, res);
      if (req.method === 'POST' && req.url === `/v1/projects/${PROJECT_ID}/messages:send`) return onSend(req, body, res);
      json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: `no route ${req.url}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const serviceAccount = {
    type: 'service_account',
    project_id: PROJECT_ID,
    private_key_id: 'test-key-1',
    private_key: privateKey,
    client_email: CLIENT_EMAIL,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: `${base}/token`,
  };
  return {
    state,
    sends,
    tokenRequests,
    refusedAssertions,
    serviceAccount,
    privateKey,
    /** Souk's settings for this receiver. */
    env: {
      FCM_SERVICE_ACCOUNT_JSON: JSON.stringify(serviceAccount),
      FCM_API_URL: `${base}/v1/projects/{project_id}/messages:send`,
    },
    /** Every message FCM took, in order. */
    messages: () => sends.map((s) => s.message),
  };
}
