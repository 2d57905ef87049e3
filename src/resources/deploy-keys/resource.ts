import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** SSH keys that give read (or push) access to a project's repository; one key may be enabled on many projects. */
export const deployKeys = defineResource({
  noun: 'deploy key',
  command: 'deploy-keys',
  parent: 'project',
  id: { param: 'key_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/deploy_keys',
    get: 'GET /projects/{project}/deploy_keys/{key_id}',
    create: 'POST /projects/{project}/deploy_keys',
    update: 'PUT /projects/{project}/deploy_keys/{key_id}',
    delete: 'DELETE /projects/{project}/deploy_keys/{key_id}',
    enable: 'POST /projects/{project}/deploy_keys/{key_id}/enable',
  },
  fields: {                                    // in the order the service presents them
    id: f.int({ min: 1, readOnly: true }),
    title: f.string({ create: 'required', help: 'a name for the key' }),
    created_at: f.time({ readOnly: true }),
    expires_at: f.time({ update: false, help: 'when the key stops working' }),
    key: f.string({ create: 'required', update: false, help: 'the OpenSSH public key ("ssh-ed25519 AAAA… comment")', placeholder: '<public-key>' }),
    fingerprint: f.string({ readOnly: true }),
    fingerprint_sha256: f.string({ readOnly: true }),
    can_push: f.bool({ help: 'the key may push, not only read' }),
  },
  columns: ['id', 'title', 'fingerprint_sha256', 'can_push', 'expires_at'],
  identity: ['key'],
  roles: { read: 'maintainer', write: 'maintainer' },
});

/** The instance's deploy keys (administrators): every one with its projects, and instance keys any project may enable. */
export const INSTANCE_DEPLOY_KEYS = { list: 'GET /deploy_keys', create: 'POST /deploy_keys' } as const;
