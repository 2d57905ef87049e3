import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { mergeRequests, tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;
const asAlice = { env: { FORGECTL_TOKEN: '' } };

describe('draft-notes', () => {
  it('creates a draft, publishes all, and the list is empty', async () => {
    const created = await sandbox.run(['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'looks good', '-o', 'json']);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ note: 'looks good', discussion_id: null, resolve_discussion: false, position: null });

    const piped = await sandbox.run(['draft-notes', 'list', '--project', 'acme/api', '--mr', '1']);
    expect(piped.stdout).toBe(`${created.json().id}\tlooks good\t\tfalse\t\t\n`);

    sandbox.clearRequests();
    expect((await sandbox.run(['draft-notes', 'publish-all', '--project', 'acme/api', '--mr', '1'])).code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    const published = await sandbox.run(['draft-notes', 'publish-all', '--project', 'acme/api', '--mr', '1', '--yes']);
    expect(published.code).toBe(0);
    expect(published.stderr).toContain('Published 1 draft note on merge request !1');
    const list = await sandbox.run(['draft-notes', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(list.json()).toEqual([]);

    const notes = await sandbox.run(['notes', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(notes.json()[0]).toMatchObject({ body: 'looks good', type: 'DiscussionNote', noteable_type: 'MergeRequest', author: { username: 'root' } });

    const nothing = await sandbox.run(['draft-notes', 'publish-all', '--project', 'acme/api', '--mr', '1', '--yes']);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toContain('no draft notes');
  });

  it('keeps drafts private to their author', async () => {
    asAlice.env.FORGECTL_TOKEN = token('alice-token');
    const draft = (await sandbox.run(['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'secret', '-o', 'json'], asAlice)).json();
    expect((await sandbox.run(['draft-notes', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json'])).json()).toEqual([]);
    expect((await sandbox.run(['draft-notes', 'get', String(draft.id), '--project', 'acme/api', '--mr', '1'])).code).toBe(5);
    expect((await sandbox.run(['draft-notes', 'publish', String(draft.id), '--project', 'acme/api', '--mr', '1', '--yes'])).code).toBe(5);

    const updated = await sandbox.run(['draft-notes', 'update', String(draft.id), '--project', 'acme/api', '--mr', '1', '--note', 'less secret', '-o', 'json'], asAlice);
    expect(updated.json().note).toBe('less secret');
    expect((await sandbox.run(['draft-notes', 'delete', String(draft.id), '--project', 'acme/api', '--mr', '1', '--yes'], asAlice)).code).toBe(0);
    expect((await sandbox.run(['draft-notes', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json'], asAlice)).json()).toEqual([]);
  });

  it('replies to a thread and resolves it when published', async () => {
    const threads = (await sandbox.run(['api', '/projects/acme%2Fapi/merge_requests/1/discussions'])).json();
    const thread = threads.find((t: { notes: Array<{ body: string }> }) => t.notes[0].body === 'looks good');
    expect(thread.notes[0]).toMatchObject({ resolvable: true, resolved: false });

    const missing = await sandbox.run(['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'fixed', '--reply-to', 'f'.repeat(40)]);
    expect(missing.code).toBe(6);
    expect(missing.stderr).toContain('Thread to reply to cannot be found');

    const reply = await sandbox.run(['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'fixed', '--reply-to', thread.id, '--resolve-discussion', '-o', 'json']);
    expect(reply.json()).toMatchObject({ discussion_id: thread.id, resolve_discussion: true });
    expect((await sandbox.run(['draft-notes', 'publish', String(reply.json().id), '--project', 'acme/api', '--mr', '1', '--yes'])).code).toBe(0);

    const after = (await sandbox.run(['api', '/projects/acme%2Fapi/merge_requests/1/discussions'])).json().find((t: { id: string }) => t.id === thread.id);
    expect(after.notes.map((n: { body: string; resolved: boolean }) => [n.body, n.resolved])).toEqual([['looks good', true], ['fixed', true]]);
  });

  it('writes a line comment with its position and publishes it alone', async () => {
    const mr = mergeRequests(sandbox.db).find((m) => m.project_id === 1 && m.iid === 1)!;
    const base = 'a'.repeat(40);
    const created = await sandbox.run([
      'draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'Off by one?', '--new-path', 'src/health.rb', '--new-line', '1',
      '--base-sha', base, '--start-sha', base, '--head-sha', mr.sha, '-o', 'json',
    ]);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ position: { position_type: 'text', new_path: 'src/health.rb', old_path: 'src/health.rb', new_line: 1, head_sha: mr.sha } });
    expect(created.json().line_code).toMatch(/^[0-9a-f]{40}__1$/);
    const id = String(created.json().id);
    expect((await sandbox.run(['draft-notes', 'publish', id, '--project', 'acme/api', '--mr', '1', '--yes'])).code).toBe(0);
    const notes = (await sandbox.run(['notes', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json'])).json();
    expect(notes.find((n: { body: string }) => n.body === 'Off by one?')).toMatchObject({ type: 'DiffNote', position: { new_path: 'src/health.rb' } });
  });

  it('checks text, position and reply flags before sending', async () => {
    sandbox.clearRequests();
    const runs = [
      ['draft-notes', 'create', '--project', 'acme/api', '--mr', '1'],
      ['draft-notes', 'create', '--project', 'acme/api', '--note', 'x'],
      ['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'x', '--new-path', 'a.rb', '--new-line', '1'],
      ['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'x', '--resolve-discussion'],
      ['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'x', '--position-type', 'pdf'],
      ['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note', 'x', '--line-range-start', 'color=red'],
      ['draft-notes', 'update', '1', '--project', 'acme/api', '--mr', '1'],
    ];
    for (const argv of runs) expect((await sandbox.run(argv)).code, argv.join(' ')).toBe(2);
    expect((await sandbox.run(['draft-notes', 'create', '--project', 'acme/api', '--mr', '1', '--note-file', '-'], { input: 'x'.repeat(1_000_001) })).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});
