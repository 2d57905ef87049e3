import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);

/** A config folder whose profile "bot" holds a new token of project acme/web expiring in 5 days. */
async function projectBotProfile(): Promise<{ env: Record<string, string | undefined>; projectId: number }> {
  const project = await sandbox.call('GET', '/projects/acme%2Fweb');
  const created = await sandbox.call('POST', `/projects/${project.body.id}/access_tokens`, { name: 'soon', scopes: ['api'], access_level: 40, expires_at: day(5) });
  expect(created.status).toBe(201);
  const env = { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined };
  const login = await sandbox.run(['-p', 'bot', 'auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env, input: created.body.token as string });
  expect(login.code, login.stderr).toBe(0);
  return { env, projectId: project.body.id as number };
}

/** Runs a command line as a user would paste it (`forgectl …`), in that environment. */
const runLine = (line: string, env: Record<string, string | undefined>) => sandbox.run(line.split(' ').slice(1), { env });

describe('the fix named for a project token in use runs as written and keeps the profile working', () => {
  it('tokens audit: FIX rotates it as self through its project, saving it to the profile', async () => {
    const { env, projectId } = await projectBotProfile();
    const audit = await sandbox.run(['-p', 'bot', 'tokens', 'audit', '-o', 'json'], { env });
    expect(audit.code, audit.stderr).toBe(9);
    const row = (JSON.parse(audit.stdout) as Array<{ self: boolean; fix: string }>).find((r) => r.self)!;
    expect(row.fix).toBe(`forgectl -p bot tokens rotate self --project ${projectId} --expires-in 90d --yes`);
    const fixed = await runLine(row.fix, env);
    expect(fixed.code, fixed.stderr).toBe(0);
    const status = await sandbox.run(['-p', 'bot', 'auth', 'status', '-o', 'json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).expires_at).toBe(day(90));
  });

  it('a token from FORGECTL_TOKEN: the fix names no profile, which would use the profile\'s own token (here none)', async () => {
    const { env, projectId } = await projectBotProfile();
    // The profile keeps only the URL; the token comes from the environment, as after eval "$(forgectl sandbox --print-env)".
    const token = (await sandbox.call('POST', `/projects/${projectId}/access_tokens`, { name: 'from-env', scopes: ['api'], access_level: 40, expires_at: day(5) })).body.token as string;
    expect((await sandbox.run(['-p', 'url-only', 'profile', 'set', 'url', sandbox.rootUrl], { env })).code).toBe(0);
    expect((await sandbox.run(['profile', 'use', 'url-only'], { env })).code).toBe(0);
    const fromEnv = { ...env, FORGECTL_TOKEN: token };
    const audit = await sandbox.run(['tokens', 'audit', '-o', 'json'], { env: fromEnv });
    const row = (JSON.parse(audit.stdout) as Array<{ self: boolean; fix: string }>).find((r) => r.self)!;
    expect(row.fix).toBe(`forgectl tokens rotate self --project ${projectId} --expires-in 90d --yes`);
    // Pasted at a terminal, it prints the new token there; off one (cron), nothing would keep it: refused, nothing sent.
    expect((await runLine(row.fix, fromEnv)).code).toBe(2);
    const fixed = await sandbox.run(row.fix.split(' ').slice(1), { env: fromEnv, tty: true });
    expect(fixed.code, fixed.stderr).toBe(0);
  });

  it('doctor: the expiry warning names the same rotation', async () => {
    const { env, projectId } = await projectBotProfile();
    const doctor = await sandbox.run(['-p', 'bot', 'doctor', '-o', 'json'], { env });
    const expiry = (JSON.parse(doctor.stdout) as Array<{ check: string; status: string; fix: string }>).find((c) => c.check === 'expiry')!;
    expect(expiry).toMatchObject({ status: 'warn', fix: `rotate it: forgectl -p bot tokens rotate self --project ${projectId} (or create a new one)` });
    const fixed = await runLine(expiry.fix.replace(/^rotate it: /, '').replace(/ \(or create a new one\)$/, ' --yes'), env);
    expect(fixed.code, fixed.stderr).toBe(0);
  });
});
