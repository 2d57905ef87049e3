import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { pullMirrorTable } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

describe('mirror pull', () => {
  it('sets a mirror with credentials in the URL; get shows it enabled and the password nowhere', async () => {
    const set = await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--url', 'https://u:pw@src.example.com/x.git', '--enabled', '--yes', '-o', 'json']);
    expect(set.code).toBe(0);
    expect(set.stdout + set.stderr).not.toContain('pw@');
    expect(set.stderr).toContain('visible to other users');

    const get = await sandbox.run(['mirror', 'pull', 'get', '--project', 'acme/api', '-o', 'json']);
    expect(get.code).toBe(0);
    expect(get.json()).toMatchObject({ enabled: true, url: 'https://*****:*****@src.example.com/x.git' });
    expect(get.stdout + get.stderr).not.toMatch(/pw/);
  });

  it('reads the password from stdin and never prints it, not even with --verbose', async () => {
    const secret = 'stdin-secret-42';
    const result = await sandbox.run(['--verbose', 'mirror', 'pull', 'set', '--project', 'acme/api', '--url', 'https://src.example.com/y.git', '--auth-user', 'bot', '--auth-password-stdin', '--yes'], { input: `${secret}\n` });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(secret);
    expect(pullMirrorTable(sandbox.db).find((m) => m.project_id === 1)).toMatchObject({ auth_user: 'bot', auth_password: secret });
    // On a terminal: a hidden prompt, never echoed.
    const typed = await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--auth-user', 'bot', '--auth-password-stdin', '--yes'], { tty: true, input: 'typed-secret\n' });
    expect(typed.code, typed.stderr).toBe(0);
    // The prompt says the input is masked and shows nothing per character (not even its length).
    expect(typed.stderr).toMatch(/--auth-password-stdin.*\[input is masked\]/);
    expect(typed.stderr).not.toContain('*');
    expect(typed.stdout + typed.stderr).not.toContain('typed-secret');
    expect(pullMirrorTable(sandbox.db).find((m) => m.project_id === 1)).toMatchObject({ auth_password: 'typed-secret' });
  });

  it('redacts the URL credentials and auth_password under --dry-run and sends nothing', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['--dry-run', 'mirror', 'pull', 'set', '--project', 'acme/api', '--url', 'https://u:hunter2@src.example.com/x.git', '--auth-password-stdin'], { input: 'also-secret\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('PUT ');
    expect(result.stdout).toContain('https://*****:*****@src.example.com/x.git');
    expect(result.stdout + result.stderr).not.toMatch(/hunter2|also-secret/);
    expect(sandbox.requests()).toEqual([]);
  });

  it('needs --yes off a terminal, and checks input before sending', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--enabled'])).code).toBe(2);
    expect((await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--url', 'ftp://src.example.com/x', '--yes'])).code).toBe(2);
    const both = await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--branch-regex', '^release/', '--only-protected-branches', '--yes']);
    expect(both.code).toBe(2);
    expect((await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--branch-regex', '(', '--yes'])).code).toBe(2);
    expect((await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/api', '--yes'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('a branch regex turns only-protected-branches off', async () => {
    const result = await sandbox.run(['mirror', 'pull', 'set', '--project', 'acme/web', '--branch-regex', '^release/', '--overwrite-diverged', '--yes', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ mirror_branch_regex: '^release/', only_mirror_protected_branches: false, mirror_overwrites_diverged_branches: true });
  });

  it('sync starts an update that get follows to finished', async () => {
    const sync = await sandbox.run(['mirror', 'pull', 'sync', '--project', 'acme/web']);
    expect(sync.code).toBe(0);
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await sandbox.run(['mirror', 'pull', 'get', '--project', 'acme/web', '--fields', 'update_status', '-o', 'json'])).json().update_status);
    expect(statuses).toEqual(['started', 'finished', 'finished']);
  });

  it('disable removes mirroring; get then answers 400 (exit 6)', async () => {
    expect((await sandbox.run(['mirror', 'pull', 'disable', '--project', 'acme/web'])).code).toBe(2);
    const disabled = await sandbox.run(['mirror', 'pull', 'disable', '--project', 'acme/web', '--yes', '-o', 'json']);
    expect(disabled.json().enabled).toBe(false);
    const get = await sandbox.run(['mirror', 'pull', 'get', '--project', 'acme/web']);
    expect(get.code).toBe(6);
    expect(get.stderr).toContain('The project is not mirrored');
  });

  it('shows a group summary for `mirror pull`', async () => {
    const help = await sandbox.run(['mirror', '--help']);
    expect(help.stdout + help.stderr).toContain('Pull mirroring');
  });
});
