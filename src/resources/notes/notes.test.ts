import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;

describe('notes', () => {
  it('lists the seeded notes of issue 1, newest first, and only comments on request', async () => {
    const all = await sandbox.run(['notes', 'list', '--project', 'acme/api', '--issue', '1', '-o', 'json']);
    expect(all.code).toBe(0);
    expect(all.json().map((n: { system: boolean }) => n.system)).toEqual([false, true]);
    expect(all.json()[0]).toMatchObject({ noteable_type: 'Issue', noteable_iid: 1, author: { username: 'bob' }, internal: false, imported_from: 'none' });
    const comments = await sandbox.run(['notes', 'list', '--project', 'acme/api', '--issue', '1', '--activity-filter', 'only_comments', '--sort', 'asc']);
    expect(comments.stdout).toMatch(/^\d+\tbob\t\S+\tfalse\tfalse\tI will take this one; see !1\.\n$/);
  });

  it('creates, reads, updates and deletes a note on a snippet', async () => {
    const created = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--snippet', '1', '--body', 'Looks fine', '-o', 'json']);
    expect(created.code).toBe(0);
    const note = created.json();
    expect(note).toMatchObject({ body: 'Looks fine', noteable_type: 'Snippet', noteable_iid: null, author: { username: 'root' } });
    const id = String(note.id);
    expect((await sandbox.run(['notes', 'get', id, '--project', 'acme/api', '--snippet', '1', '-o', 'json'])).json().body).toBe('Looks fine');
    const updated = await sandbox.run(['notes', 'update', id, '--project', 'acme/api', '--snippet', '1', '--body', 'Looks good', '-o', 'json']);
    expect(updated.json().body).toBe('Looks good');
    expect((await sandbox.run(['notes', 'delete', id, '--project', 'acme/api', '--snippet', '1'])).code).toBe(2);
    expect((await sandbox.run(['notes', 'delete', id, '--project', 'acme/api', '--snippet', '1', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['notes', 'get', id, '--project', 'acme/api', '--snippet', '1'])).code).toBe(5);
  });

  it('reads the body from a file or stdin', async () => {
    const file = join(tempDir(), 'note.md');
    writeFileSync(file, '# Review\n\nAll good.\n');
    const fromFile = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body-file', file, '-o', 'json']);
    expect(fromFile.json().body).toBe('# Review\n\nAll good.\n');
    const fromStdin = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body-file', '-', '-o', 'json'], { input: 'from a pipe' });
    expect(fromStdin.json().body).toBe('from a pipe');
  });

  it('checks the body and the noteable before sending', async () => {
    sandbox.clearRequests();
    const long = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body-file', '-'], { input: 'x'.repeat(1_000_001) });
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('at most 1,000,000');
    expect((await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1'])).code).toBe(2);
    expect((await sandbox.run(['notes', 'create', '--project', 'acme/api', '--body', 'x'])).code).toBe(2);
    expect((await sandbox.run(['notes', 'list', '--project', 'acme/api', '--issue', '1', '--snippet', '1'])).code).toBe(2);
    expect((await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body', 'x', '--body-file', '-'])).code).toBe(2);
    expect((await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body', 'x', '--created-at', '1960-01-01'])).code).toBe(2);
    expect((await sandbox.run(['notes', 'update', '1', '--project', 'acme/api', '--issue', '1'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const exact = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body-file', '-', '-o', 'json'], { input: 'é'.repeat(1_000_000) });
    expect(exact.code).toBe(0);
  });

  it('backdates a note for administrators and keeps internal notes from guests', async () => {
    const backdated = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body', 'imported', '--created-at', '2020-05-01T10:00:00Z', '--internal', '-o', 'json']);
    expect(backdated.json()).toMatchObject({ created_at: '2020-05-01T10:00:00.000Z', internal: true, confidential: true });
    const asBob = await sandbox.run(['notes', 'create', '--project', 'acme/api', '--issue', '1', '--body', 'mine', '--created-at', '2020-05-01T10:00:00Z', '-o', 'json'], { env: { FORGECTL_TOKEN: token('bob-token') } });
    expect(asBob.json().created_at).not.toBe('2020-05-01T10:00:00.000Z');
    // bob may not change root's note.
    const id = String(backdated.json().id);
    expect((await sandbox.run(['notes', 'update', id, '--project', 'acme/api', '--issue', '1', '--body', 'hijack'], { env: { FORGECTL_TOKEN: token('bob-token') } })).code).toBe(4);
  });

  it('answers 404 for a missing issue', async () => {
    const missing = await sandbox.run(['notes', 'list', '--project', 'acme/api', '--issue', '99']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('404 Issue Not Found');
  });

  it('takes its parent from the option given: none or two of --issue, --snippet, --mr is exit 2 with nothing sent', async () => {
    sandbox.clearRequests();
    for (const verb of [['list'], ['get', '1'], ['delete', '1', '--yes'], ['create', '--body', 'x'], ['update', '1', '--body', 'x']]) {
      const none = await sandbox.run(['notes', ...verb, '--project', 'acme/api']);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('which notes? give --issue, --snippet or --mr');
      const two = await sandbox.run(['notes', ...verb, '--project', 'acme/api', '--issue', '1', '--mr', '1']);
      expect(two.code).toBe(2);
      expect(two.stderr).toContain('give only one of --issue, --snippet or --mr');
    }
    expect(sandbox.requests()).toEqual([]);
    const onMr = await sandbox.run(['notes', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(onMr.code).toBe(0);
    expect(onMr.json().every((note: { noteable_type: string }) => note.noteable_type === 'MergeRequest')).toBe(true);
  });
});
