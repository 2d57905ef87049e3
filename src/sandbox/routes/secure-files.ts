import { createHash } from 'node:crypto';
import { findProject, projectFor, Role } from '../auth.js';
import { defineTable, type Db } from '../db.js';
import { created, errors, noContent, ok, required, type SandboxRequest } from '../http.js';
import { paginate } from '../pagination.js';
import type { SandboxModule } from '../module.js';

/** Limits of spec 1: 5 MB per file, 100 files per project. */
export const SECURE_FILE_MAX_BYTES = 5 * 1024 * 1024;
export const SECURE_FILES_PER_PROJECT = 100;

export interface SecureFile {
  id: number;
  project_id: number;
  name: string;
  checksum: string;
  created_at: string;
  expires_at: string | null;
  /** The contents, base64 (the state file is JSON). */
  data: string;
}

export const secureFileTable = defineTable<SecureFile>('secure_files');

const present = (f: SecureFile) => ({
  id: f.id,
  name: f.name,
  checksum: f.checksum,
  checksum_algorithm: 'sha256',
  created_at: f.created_at,
  expires_at: f.expires_at,
  // Certificate metadata is parsed only from .cer, .p12 and .mobileprovision files; the sandbox has none.
  metadata: null,
});

function addFile(db: Db, projectId: number, name: string, data: Buffer, now: Date): SecureFile {
  const file: SecureFile = {
    id: db.nextId('secure_files'),
    project_id: projectId,
    name,
    checksum: createHash('sha256').update(data).digest('hex'),
    created_at: now.toISOString(),
    expires_at: null,
    data: data.toString('base64'),
  };
  secureFileTable(db).push(file);
  return file;
}

function findFile(req: SandboxRequest, projectId: number): SecureFile {
  const file = secureFileTable(req.db).find((f) => f.project_id === projectId && String(f.id) === req.params.secure_file_id);
  if (!file) throw errors.notFound('Secure File');
  return file;
}

export const secureFiles: SandboxModule = {
  routes(api) {
    api.get('/projects/:id/secure_files', (req) => {
      const project = projectFor(req, Role.developer);
      return paginate(req, secureFileTable(req.db).filter((f) => f.project_id === project.id), { present });
    });

    api.get('/projects/:id/secure_files/:secure_file_id', (req) => ok(present(findFile(req, projectFor(req, Role.developer).id))));

    api.get('/projects/:id/secure_files/:secure_file_id/download', (req) => {
      const file = findFile(req, projectFor(req, Role.developer).id);
      return {
        status: 200,
        raw: { data: Buffer.from(file.data, 'base64'), contentType: 'application/octet-stream' },
        headers: { 'Content-Disposition': `attachment; filename="${encodeURIComponent(file.name)}"` },
      };
    });

    api.post('/projects/:id/secure_files', (req) => {
      const project = projectFor(req, Role.maintainer);
      const name = String(required(req, 'name'));
      const upload = req.files.file;
      if (!upload) throw errors.missing('file');
      if (name.split(/[\\/]/).includes('..')) throw errors.error(400, 'name is invalid');
      if (upload.data.length > SECURE_FILE_MAX_BYTES) throw errors.message(413, '413 Request Entity Too Large');
      const existing = secureFileTable(req.db).filter((f) => f.project_id === project.id);
      if (existing.some((f) => f.name === name)) throw errors.validation({ name: ['has already been taken'] });
      if (existing.length >= SECURE_FILES_PER_PROJECT) {
        throw errors.validation({ base: [`Maximum number of secure files (${SECURE_FILES_PER_PROJECT}) reached for this project`] });
      }
      return created(present(addFile(req.db, project.id, name, upload.data, req.now())));
    });

    api.delete('/projects/:id/secure_files/:secure_file_id', (req) => {
      const file = findFile(req, projectFor(req, Role.maintainer).id);
      secureFileTable(req.db).splice(secureFileTable(req.db).indexOf(file), 1);
      return noContent();
    });
  },

  seed(db, { now }) {
    addFile(db, findProject(db, 'acme/api').id, 'deploy.env', Buffer.from('DEPLOY_TARGET=staging\n'), now);
  },
};
