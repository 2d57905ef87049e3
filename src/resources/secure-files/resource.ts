import { f, type RecordOf } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** CI/CD secure files of a project (keystores, provisioning profiles): uploaded as multipart, never shown as text. */
export const secureFiles = defineResource({
  noun: 'secure file',
  command: 'secure-files',
  parent: 'project',
  id: { param: 'secure_file_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/secure_files',
    get: 'GET /projects/{project}/secure_files/{secure_file_id}',
    delete: 'DELETE /projects/{project}/secure_files/{secure_file_id}',
    /** multipart/form-data: name and file */
    create: 'POST /projects/{project}/secure_files',
    download: 'GET /projects/{project}/secure_files/{secure_file_id}/download',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    name: f.string({ create: 'required', update: false, help: 'its name in the project, unique' }),
    checksum: f.string({ readOnly: true }),
    checksum_algorithm: f.enum(['sha256'], { readOnly: true }),
    created_at: f.time({ readOnly: true }),
    expires_at: f.time({ readOnly: true, nullable: true }),
    /** Certificate metadata, parsed from .cer, .p12 and .mobileprovision files only. */
    metadata: f.object<Record<string, unknown> | null>(),
  },
  columns: ['id', 'name', 'checksum', 'created_at', 'expires_at'],
  identity: ['name'],
  roles: { read: 'developer', write: 'maintainer' },
});

/** Limits of the service: 5 MB per file, 100 files per project (the CLI checks them before uploading). */
export const SECURE_FILE_LIMITS = { maxBytes: 5 * 1024 * 1024, perProject: 100 } as const;

/** A secure file as the service presents it (never its contents). */
export type SecureFile = RecordOf<typeof secureFiles>;
