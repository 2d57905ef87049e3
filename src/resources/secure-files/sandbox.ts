import { createHash } from 'node:crypto';
import { SECURE_FILE_LIMITS, secureFiles as resource } from './resource.js';
import { findProject, projectFor, Role } from '../../sandbox/auth.js';
import { crudModule, type Crud } from '../../sandbox/crud.js';
import { errors, required } from '../../sandbox/http.js';
import type { StoredSecureFile } from '../../sandbox/model.js';

/** What a file's name and contents store: the checksum the service computes, the contents in base64. */
const fileValues = (name: string, data: Buffer): Partial<StoredSecureFile> => ({
  name,
  checksum: createHash('sha256').update(data).digest('hex'),
  expires_at: null,
  data: data.toString('base64'),
});

/** List, get and delete are plain; the upload (create, multipart) takes a file, and the download answers raw bytes. */
export const secureFiles: Crud<StoredSecureFile> = crudModule<StoredSecureFile>(resource, {
  // Certificate metadata is parsed only from .cer, .p12 and .mobileprovision files; the sandbox has none.
  computed: () => ({ checksum_algorithm: 'sha256', metadata: null }),
  input(req) {
    const name = String(required(req, 'name'));
    const upload = req.files.file;
    if (!upload) throw errors.missing('file');
    if (name.split(/[\\/]/).includes('..')) throw errors.error(400, 'name is invalid');
    if (upload.data.length > SECURE_FILE_LIMITS.maxBytes) throw errors.message(413, '413 Request Entity Too Large');
    return fileValues(name, upload.data);
  },
  validate(file, req, _previous, { parent }) {
    const existing = secureFiles.table(req.db).filter((f) => f.project_id === parent.id);
    if (existing.some((f) => f.name === file.name)) throw errors.validation({ name: ['has already been taken'] });
    if (existing.length >= SECURE_FILE_LIMITS.perProject) {
      throw errors.validation({ base: [`Maximum number of secure files (${SECURE_FILE_LIMITS.perProject}) reached for this project`] });
    }
  },
  routes(api) {
    api.route(resource.routes.download, (req) => {
      const file = secureFiles.find(req, projectFor(req, Role.developer));
      return {
        status: 200,
        raw: { data: Buffer.from(file.data, 'base64'), contentType: 'application/octet-stream' },
        headers: { 'Content-Disposition': `attachment; filename="${encodeURIComponent(file.name)}"` },
      };
    });
  },
  seed(db, _context, insert) {
    insert(findProject(db, 'acme/api').id, fileValues('deploy.env', Buffer.from('DEPLOY_TARGET=staging\n')));
  },
});
