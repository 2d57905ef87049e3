import { createHash } from 'node:crypto';
import { SECURE_FILE_LIMITS, secureFiles as resource } from './resource.js';
import { findProject, projectFor, Role } from '../../sandbox/auth.js';
import { crudModule, type Crud } from '../../sandbox/crud.js';
import type { Db } from '../../sandbox/db.js';
import { created, errors, required } from '../../sandbox/http.js';
import type { StoredSecureFile } from '../../sandbox/model.js';

function addFile(db: Db, projectId: number, name: string, data: Buffer, now: Date): StoredSecureFile {
  const file: StoredSecureFile = {
    id: db.nextId('secure_files'),
    project_id: projectId,
    name,
    checksum: createHash('sha256').update(data).digest('hex'),
    created_at: now.toISOString(),
    expires_at: null,
    data: data.toString('base64'),
  };
  secureFiles.table(db).push(file);
  return file;
}

/** List, get and delete are plain; the upload (multipart) and the download (raw bytes) are this module's own. */
export const secureFiles: Crud<StoredSecureFile> = crudModule<StoredSecureFile>(resource, {
  // Certificate metadata is parsed only from .cer, .p12 and .mobileprovision files; the sandbox has none.
  computed: () => ({ checksum_algorithm: 'sha256', metadata: null }),
  routes(api) {
    api.route(resource.routes.download, (req) => {
      const file = secureFiles.find(req, projectFor(req, Role.developer));
      return {
        status: 200,
        raw: { data: Buffer.from(file.data, 'base64'), contentType: 'application/octet-stream' },
        headers: { 'Content-Disposition': `attachment; filename="${encodeURIComponent(file.name)}"` },
      };
    });

    api.route(resource.routes.upload, (req) => {
      const project = projectFor(req, Role.maintainer);
      const name = String(required(req, 'name'));
      const upload = req.files.file;
      if (!upload) throw errors.missing('file');
      if (name.split(/[\\/]/).includes('..')) throw errors.error(400, 'name is invalid');
      if (upload.data.length > SECURE_FILE_LIMITS.maxBytes) throw errors.message(413, '413 Request Entity Too Large');
      const existing = secureFiles.table(req.db).filter((f) => f.project_id === project.id);
      if (existing.some((f) => f.name === name)) throw errors.validation({ name: ['has already been taken'] });
      if (existing.length >= SECURE_FILE_LIMITS.perProject) {
        throw errors.validation({ base: [`Maximum number of secure files (${SECURE_FILE_LIMITS.perProject}) reached for this project`] });
      }
      const file = addFile(req.db, project.id, name, upload.data, req.now());
      return created(secureFiles.present(file, req, project));
    });
  },
  seed(db, { now }) {
    addFile(db, findProject(db, 'acme/api').id, 'deploy.env', Buffer.from('DEPLOY_TARGET=staging\n'), now);
  },
});
