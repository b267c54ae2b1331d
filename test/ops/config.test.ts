import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ConfigError, declaredSettings, effectiveSettings, loadConfig, settingsTable } from '../../src/config.js';

const ROOT = new URL('../../', import.meta.url);
const SECRETS = {
  API_KEY: 'api-key-0123456789abcdef',
  JWT_SECRET: 'jwt-secret-0123456789abcdef',
  METRICS_TOKEN: 'metrics-0123456789abcdef',
};

/** Runs `souk config` from the sources (the same main() that bin/souk runs from dist/). */
function soukConfig(env: Record<string, string>) {
  const script = "import('./src/cli/main.ts').then((cli) => cli.main(['config']))";
  return spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
}

describe('configuration', () => {
  it('new settings: LOG_PRETTY, METRICS_TOKEN, CORS_ORIGINS are validated', () => {
    const config = loadConfig({
      LOG_PRETTY: 'true',
      METRICS_TOKEN: SECRETS.METRICS_TOKEN,
      CORS_ORIGINS: 'https://a.example, http://localhost:3000',
    });
    assert.equal(config.logPretty, true);
    assert.equal(config.metricsToken, SECRETS.METRICS_TOKEN);
    assert.deepEqual(config.corsOrigins, ['https://a.example', 'http://localhost:3000']);
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.equal(loadConfig({}).logPretty, false);
    for (const env of [
      { LOG_PRETTY: 'yes' },
      { METRICS_TOKEN: 'short' },
      { CORS_ORIGINS: '*' },
      { CORS_ORIGINS: 'https://a.example/path' },
      { CORS_ORIGINS: 'a.example' },
    ]) {
      assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    }
  });

  it('DB_PREPARED_STATEMENTS is on unless set false, and takes only true or false', () => {
    assert.equal(loadConfig({}).db.preparedStatements, true);
    assert.equal(loadConfig({ DB_PREPARED_STATEMENTS: 'false' }).db.preparedStatements, false);
    assert.equal(loadConfig({ DB_PREPARED_STATEMENTS: '0' }).db.preparedStatements, false);
    assert.throws(() => loadConfig({ DB_PREPARED_STATEMENTS: 'off' }), ConfigError);
  });

  for (const [name, field] of [
    ['USER_CACHE_SIZE', 'userCacheSize'],
    ['TOKEN_CACHE_SIZE', 'tokenCacheSize'],
  ] as const) {
    it(`${name} is 100000 unless set to a whole number from 0 to 10000000`, () => {
      assert.equal(loadConfig({})[field], 100_000);
      assert.equal(loadConfig({ [name]: '0' })[field], 0);
      assert.equal(loadConfig({ [name]: '250000' })[field], 250_000);
      for (const bad of ['-1', '1.5', '100k', '10000001']) assert.throws(() => loadConfig({ [name]: bad }), ConfigError, bad);
    });
  }

  it('DB_CACHE_MB is 16 and DB_MMAP_MB 0 unless set to a whole number of MB', () => {
    assert.equal(loadConfig({}).db.cacheMb, 16);
    assert.equal(loadConfig({ DB_CACHE_MB: '64' }).db.cacheMb, 64);
    for (const bad of ['0', '-1', '1.5', '16MB', 'auto', '65537']) assert.throws(() => loadConfig({ DB_CACHE_MB: bad }), ConfigError, bad);
    assert.equal(loadConfig({}).db.mmapMb, 0);
    assert.equal(loadConfig({ DB_MMAP_MB: '8192' }).db.mmapMb, 8192);
    for (const bad of ['-1', '1.5', '8GB', '1048577']) assert.throws(() => loadConfig({ DB_MMAP_MB: bad }), ConfigError, bad);
  });

  it('the settings table of docs/configuration.md is the one generated from the declarations', () => {
    const doc = readFileSync(new URL('docs/configuration.md', ROOT), 'utf8');
    assert.ok(doc.includes(`\n${settingsTable()}\n`), 'docs/configuration.md is stale: run npm run settings-table');
    assert.deepEqual(
      declaredSettings().map((s) => s.name),
      effectiveSettings(loadConfig({})).map(([name]) => name),
    );
  });

  it('souk config prints no password of any URL setting, in the address or in a parameter', () => {
    const urls = declaredSettings().filter((s) => s.kind === 'url');
    assert.deepEqual(urls.map((s) => s.name).sort(), [
      'CONSOLE_URL',
      'DATABASE_URL',
      'EXPO_PUSH_URL',
      'FCM_API_URL',
      'FILES_S3_PUBLIC_URL',
      'FILES_S3_URL',
      'FILES_URL',
      'PUSHER_URL',
      'REDIS_URL',
      'SITE_URL',
      'SMTP_URL',
      'WEBHOOK_URLS',
    ]);
    const env: Record<string, string> = {
      DATABASE_URL: 'postgres://souk:pg-Pass@word-1@db.example:5432/souk?sslmode=verify-full&sslpassword=pg-ssl-pass-2',
      REDIS_URL: 'rediss://default:redis-pass-3@cache.example:6380/0?password=redis-param-pass-4',
      SITE_URL: 'https://admin:site-pass-5@m.example',
      CONSOLE_URL: 'https://admin:console-pass-16@m.example/console',
      WEBHOOK_URLS: 'https://hook:hook-pass-6@hooks.example/in?token=hook-token-7,https://b.example/x',
      WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      EXPO_PUSH_URL: 'https://push:push-pass-8@push.example/send?token=push-token-9',
      EXPO_ACCESS_TOKEN: 'expo-access-token-10-abcdefgh',
      SMTP_URL: 'smtps://mailer:smtp-pass-11@smtp.example:465',
      MAIL_FROM: 'Souk <noreply@souk.example>',
      FILES_S3_URL: 's3://AKIAKEY:s3-secret-11@minio.example:9000/souk-files/chat',
      FILES_S3_PUBLIC_URL: 'https://cdn:cdn-pass-12@cdn.example/chat',
      FCM_API_URL: 'https://fcm:fcm-pass-13@fcm.example/v1/projects/{project_id}/messages:send',
      FCM_SERVICE_ACCOUNT_JSON: JSON.stringify({
        type: 'service_account',
        project_id: 'souk-config-test',
        private_key_id: 'fcm-key-id-15',
        private_key: '-----BEGIN PRIVATE KEY-----\nfcm-private-key-14\n-----END PRIVATE KEY-----\n',
        client_email: 'push@souk-config-test.iam.gserviceaccount.com',
        token_uri: 'https://oauth2.googleapis.com/token',
      }),
      PUSHER_URL: 'https://pusher-key:pusher-secret-13@api-eu.pusher.com/apps/4711',
    };
    const res = soukConfig(env);
    assert.equal(res.status, 0, res.stderr);
    for (const secret of [
      'pg-Pass',
      'word-1',
      'pg-ssl-pass-2',
      'redis-pass-3',
      'redis-param-pass-4',
      'site-pass-5',
      'hook-pass-6',
      'hook-token-7',
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'push-pass-8',
      'push-token-9',
      'expo-access-token-10',
      'smtp-pass-11',
      's3-secret-11',
      'cdn-pass-12',
      'fcm-pass-13',
      'fcm-private-key-14',
      'fcm-key-id-15',
      'pusher-secret-13',
      'console-pass-16',
    ]) {
      assert.ok(!res.stdout.includes(secret) && !res.stderr.includes(secret), secret);
    }
    assert.ok(
      res.stdout.includes('DATABASE_URL="postgres://souk:****@db.example:5432/souk?sslmode=verify-full&sslpassword=****"'),
      res.stdout,
    );
    assert.ok(res.stdout.includes('REDIS_URL="rediss://default:****@cache.example:6380/0?password=****"'), res.stdout);
    assert.ok(res.stdout.includes('WEBHOOK_URLS="https://hook:****@hooks.example/in?token=****,https://b.example/x"'), res.stdout);
    assert.ok(res.stdout.includes('WEBHOOK_SECRET=****\n'), res.stdout);
    assert.ok(res.stdout.includes('EXPO_ACCESS_TOKEN=****\n'), res.stdout);
    assert.ok(res.stdout.includes('FCM_SERVICE_ACCOUNT_JSON="project souk-config-test (key ****)"\n'), res.stdout);
    assert.ok(res.stdout.includes('SMTP_URL=smtps://mailer:****@smtp.example:465\n'), res.stdout);
    assert.ok(res.stdout.includes('PUSHER_URL=https://pusher-key:****@api-eu.pusher.com/apps/4711\n'), res.stdout);
    assert.ok(
      res.stdout.includes(
        'FILES_S3_URL="s3://AKIAKEY:****@minio.example:9000/souk-files/chat?region=us-east-1&tls=true&path_style=true&checksums=when_supported"',
      ),
      res.stdout,
    );
  });

  it('an invalid URL setting is reported without its password', () => {
    for (const [name, value] of [
      ['REDIS_URL', 'http://user:leaked-pass-6@cache:6379'],
      ['SITE_URL', 'ftp://user:leaked-pass-6@m.example'],
      ['DATABASE_URL', 'mongodb://user:leaked-pass-6@db.example/souk'],
      ['CORS_ORIGINS', 'https://user:leaked-pass-6@app.example'],
    ]) {
      const res = soukConfig({ [name as string]: value as string });
      assert.equal(res.status, 1);
      assert.match(res.stderr, new RegExp(`invalid setting: ${name}`));
      assert.ok(!res.stderr.includes('leaked-pass-6'), res.stderr);
    }
  });

  it('souk config prints every effective setting, secrets and the database password masked', () => {
    const res = soukConfig({ ...SECRETS, DATABASE_URL: 'postgres://souk:db-password-123@db.example:5432/souk', PORT: '9090' });
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.trim().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split('=')[0]),
      effectiveSettings(loadConfig({})).map(([name]) => name),
    );
    assert.ok(lines.includes('PORT=9090'));
    assert.ok(lines.includes('DATABASE_URL=postgres://souk:****@db.example:5432/souk'));
    assert.ok(lines.includes('API_KEY=****'));
    assert.ok(lines.includes('METRICS_TOKEN=****'));
    for (const secret of [...Object.values(SECRETS), 'db-password-123']) assert.ok(!res.stdout.includes(secret), secret);
  });

  it('souk config reports an invalid setting and exits non-zero', () => {
    const res = soukConfig({ CORS_ORIGINS: '*' });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /invalid setting: CORS_ORIGINS/);
  });

  it('souk help lists the config command', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', "import('./src/cli/main.ts').then((cli) => cli.main(['help']))"], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.match(out, /^ {2}config +print the effective configuration/m);
  });
});
