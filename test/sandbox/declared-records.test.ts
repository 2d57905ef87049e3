import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { presentedFields } from '../../src/api/resource.js';
import { emails } from '../../src/resources/emails/resource.js';
import { features } from '../../src/resources/features/resource.js';
import { gpgKeys } from '../../src/resources/gpg-keys/resource.js';
import { issues } from '../../src/resources/issues/resource.js';
import { mergeRequests } from '../../src/resources/merge-requests/resource.js';
import { pipelines } from '../../src/resources/pipelines/resource.js';
import { snippets } from '../../src/resources/snippets/resource.js';
import { userStatus } from '../../src/resources/user-status/resource.js';
import { sshKeys } from '../../src/resources/keys/resource.js';
import { useTestSandbox } from '../helpers/cli.js';

/**
 * The declarations of what the sandbox serves for other clients (no command reads them, so no contract row does):
 * each record the sandbox answers has the declared fields, in the declared order.
 */

const sandbox = useTestSandbox();
const names = (def: Parameters<typeof presentedFields>[0]): string[] => presentedFields(def).map(([name]) => name);
const GPG = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ0Xb3RYJKwYBBAHaRw8BAQdAdeclaredrecordsAAAA\n=abcd\n-----END PGP PUBLIC KEY BLOCK-----';

function newSshKey(): string {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (data: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, data.length]), data]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} declared@test`;
}

describe('records the sandbox serves for other clients have their declared fields', () => {
  it('emails, GPG keys, the user status and feature flags', async () => {
    expect(Object.keys((await sandbox.call('POST', '/user/emails', { email: 'declared@example.com' })).body)).toEqual(names(emails));
    expect(Object.keys((await sandbox.call('POST', '/users/2/gpg_keys', { key: GPG })).body)).toEqual(names(gpgKeys));
    expect(Object.keys((await sandbox.call('GET', '/user/status')).body)).toEqual(names(userStatus));
    expect(Object.keys((await sandbox.call('POST', '/features/declared_flag', { value: 'true' })).body)).toEqual(names(features));
  });

  it('a user\'s SSH keys: the fields of the instance\'s, without their owner', async () => {
    const key = await sandbox.call('POST', '/users/2/keys', { title: 'declared', key: newSshKey() });
    expect(key.status).toBe(201);
    expect(Object.keys(key.body).sort()).toEqual(names(sshKeys).filter((name) => name !== 'user').sort());
    expect(Object.keys((await sandbox.call('GET', `/keys/${String(key.body.id)}`)).body).sort()).toEqual(names(sshKeys).sort());
  });

  it('personal snippets: the fields of project snippets', async () => {
    const made = await sandbox.call('POST', '/snippets', { title: 'declared', files: [{ file_path: 'a.txt', content: 'a' }] });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual(names(snippets));
    expect(made.body.project_id).toBeNull();
  });

  it('pipelines, merge requests and issues: a list item and a single record', async () => {
    const [pipeline] = (await sandbox.call('GET', '/projects/acme%2Fapi/pipelines')).body as Array<Record<string, unknown>>;
    expect(Object.keys(pipeline)).toEqual(names(pipelines));
    expect(Object.keys((await sandbox.call('GET', `/projects/acme%2Fapi/pipelines/${String(pipeline.id)}`)).body)).toEqual(names(pipelines));

    const single = names(mergeRequests);
    // A list leaves out the fields of a single merge request (from `subscribed` on) …
    const [listed] = (await sandbox.call('GET', '/projects/acme%2Fapi/merge_requests')).body as Array<Record<string, unknown>>;
    expect(Object.keys(listed)).toEqual(single.slice(0, single.indexOf('subscribed')));
    // … and a single merge request has exactly the declared fields: how many approvals it needs and lacks are the
    // approvals endpoint's (GET …/merge_requests/{iid}/approvals), as on the service.
    expect(Object.keys((await sandbox.call('GET', '/projects/acme%2Fapi/merge_requests/1')).body)).toEqual(single);

    expect(Object.keys((await sandbox.call('GET', '/projects/acme%2Fapi/issues/1')).body)).toEqual(names(issues));
    expect(Object.keys(((await sandbox.call('GET', '/issues?scope=all')).body as Array<Record<string, unknown>>)[0])).toEqual(names(issues));
  });
});
