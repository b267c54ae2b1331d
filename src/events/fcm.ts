/**
 * Firebase Cloud Messaging, HTTP v1: one POST per device to `projects/{project_id}/messages:send`
 * (FCM_API_URL), authorised by an OAuth 2.0 access token that the service account's key obtains
 * through the JWT-bearer grant (RFC 7523) at the key's own `token_uri`: an RS256 assertion
 * `{iss: client_email, scope: firebase.messaging, aud: token_uri, iat, exp}` signed with the key.
 * The access token is kept until a minute before it expires, and asked for once however many
 * pushes need it at that moment; an answer 401 forgets it.
 *
 * fast-jwt signs the assertion (Souk already verifies its tokens with it): google-auth-library
 * would do the two steps with a dozen packages more (gaxios, gtoken, gcp-metadata...) for a form
 * POST and a fetch. The key is never logged: errors name HTTP statuses and FCM's error codes only.
 */
import { createSigner } from 'fast-jwt';
import type { FcmServiceAccount } from '../domain/push.js';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** An access token is renewed this long before it expires. */
const RENEW_BEFORE_MS = 60_000;
/** The assertion's lifetime: Google takes at most an hour. */
const ASSERTION_TTL_MS = 3_600_000;

/** The one push FCM sends to one device: the same title, body and conversation address as Expo's. */
export interface FcmPush {
  token: string;
  title: string;
  body: string;
  url: string;
}

/**
 * What FCM made of a push: `sent`; `gone`, the token is dead (UNREGISTERED, INVALID_ARGUMENT: it
 * is dropped); `retry`, try again later (no answer, 429, 5xx, 401), not before `afterMs` when FCM
 * said; `refused`, FCM will not take it for another reason (not retried).
 */
export type FcmOutcome =
  | { kind: 'sent' }
  | { kind: 'gone'; code: string }
  | { kind: 'retry'; error: string; afterMs?: number }
  | { kind: 'refused'; error: string };

export interface FcmOptions {
  account: FcmServiceAccount;
  /** FCM_API_URL, with `{project_id}` still in it. */
  url: string;
  timeoutMs: number;
  now?: () => number;
}

/** FCM's error codes that say the token will never work again. */
const DEAD_TOKEN = new Set(['UNREGISTERED', 'INVALID_ARGUMENT']);

export class FcmClient {
  private readonly sendUrl: string;
  private readonly now: () => number;
  private readonly sign: (payload: Record<string, unknown>) => string;
  private cached: { value: string; renewAt: number } | undefined;
  private asking: Promise<string> | undefined;

  constructor(private readonly o: FcmOptions) {
    this.sendUrl = o.url.replaceAll('{project_id}', encodeURIComponent(o.account.projectId));
    this.now = o.now ?? Date.now;
    this.sign = createSigner({
      algorithm: 'RS256',
      key: o.account.privateKey,
      ...(o.account.privateKeyId ? { kid: o.account.privateKeyId } : {}),
    });
  }

  /** Sends one push; never throws. */
  async send(push: FcmPush): Promise<FcmOutcome> {
    let accessToken: string;
    try {
      accessToken = await this.accessToken();
    } catch (err) {
      return { kind: 'retry', error: `no FCM access token: ${String((err as Error)?.message ?? err)}` };
    }
    let res: Response;
    try {
      res = await fetch(this.sendUrl, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'user-agent': 'Souk-Push/1',
          authorization: `Bearer ${accessToken}`,
        },
        body: JSON.stringify({ message: fcmMessage(push) }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
    } catch (err) {
      const error =
        (err as Error)?.name === 'TimeoutError'
          ? `FCM: no answer within ${this.o.timeoutMs} ms`
          : `FCM: ${String((err as Error)?.cause ?? err)}`;
      return { kind: 'retry', error };
    }
    const text = await res.text().catch(() => '');
    if (res.status === 200) return { kind: 'sent' };
    const code = fcmErrorCode(text);
    if (DEAD_TOKEN.has(code)) return { kind: 'gone', code };
    const error = `FCM: HTTP ${res.status}${code === '' ? '' : ` ${code}`}`;
    if (res.status === 401) {
      // The access token was revoked or has expired early: the next attempt asks for a new one.
      this.cached = undefined;
      return { kind: 'retry', error };
    }
    if (res.status === 429 || res.status >= 500) {
      const afterMs = retryAfterMs(res.headers.get('retry-after'), this.now());
      return afterMs === undefined ? { kind: 'retry', error } : { kind: 'retry', error, afterMs };
    }
    return { kind: 'refused', error };
  }

  /** The cached access token, or a new one (one request however many wait for it). */
  private accessToken(): Promise<string> {
    if (this.cached && this.now() < this.cached.renewAt) return Promise.resolve(this.cached.value);
    this.asking ??= this.askForToken().finally(() => (this.asking = undefined));
    return this.asking;
  }

  private async askForToken(): Promise<string> {
    const { account } = this.o;
    const now = this.now();
    const assertion = this.sign({
      iss: account.clientEmail,
      scope: FCM_SCOPE,
      aud: account.tokenUri,
      iat: Math.floor(now / 1000),
      exp: Math.floor((now + ASSERTION_TTL_MS) / 1000),
    });
    const res = await fetch(account.tokenUri, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Souk-Push/1' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(this.o.timeoutMs),
    });
    const text = await res.text();
    let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      throw new Error(`the token endpoint answered HTTP ${res.status}, not JSON`);
    }
    if (res.status !== 200 || typeof answer.access_token !== 'string' || answer.access_token === '') {
      // OAuth's error code (`invalid_grant`...) says what is wrong; the description may quote the request.
      const error = typeof answer.error === 'string' ? ` ${answer.error.slice(0, 100)}` : '';
      throw new Error(`the token endpoint answered HTTP ${res.status}${error}`);
    }
    const expiresInS = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
    this.cached = { value: answer.access_token, renewAt: now + expiresInS * 1000 - RENEW_BEFORE_MS };
    return answer.access_token;
  }
}

/** The FCM v1 message: a notification the system shows, and the conversation's address as data (all strings). */
export function fcmMessage(push: FcmPush) {
  return {
    token: push.token,
    notification: { title: push.title, body: push.body },
    data: { url: push.url },
    android: { priority: 'high', notification: { sound: 'default' } },
    apns: { payload: { aps: { sound: 'default' } } },
  };
}

/** FCM's own error code (`details[].errorCode`, else the status: `UNREGISTERED`, `INVALID_ARGUMENT`, `QUOTA_EXCEEDED`...), or ''. */
function fcmErrorCode(text: string): string {
  try {
    const error = (JSON.parse(text) as { error?: { status?: unknown; details?: Array<{ errorCode?: unknown }> } }).error;
    const detail = error?.details?.find((d) => typeof d?.errorCode === 'string')?.errorCode;
    const code = typeof detail === 'string' ? detail : error?.status;
    return typeof code === 'string' ? code.replace(/[^A-Z_]/g, '').slice(0, 64) : '';
  } catch {
    return '';
  }
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d{1,7}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
