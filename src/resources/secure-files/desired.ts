import { createHash } from 'node:crypto';
import { multipartBody } from '../../api/multipart.js';
import { collectionSection } from '../../desired/sections/generic.js';
import type { Owner, SectionIo } from '../../desired/model.js';
import { refuse, specOf } from '../../desired/section.js';
import { SECURE_FILE_LIMITS, secureFiles } from './resource.js';

/** CI secure files in a desired-state file (a project's `secure_files`). */

type Values = Record<string, unknown>;

/** Uploads a secure file's bytes under its name. */
async function uploadSecureFile(io: SectionIo, owner: Owner, name: string, data: Buffer): Promise<void> {
  const rawBody = multipartBody([
    { name: 'name', value: name },
    { name: 'file', value: data, filename: name, contentType: 'application/octet-stream' },
  ]);
  await io.api.call(secureFiles.routes.create, { project: owner.path }, { rawBody });
}

/** The bytes of a secure file's local file, refused when they are not what the plan compared. */
function localSecureFile(io: SectionIo, desired: Values): Buffer {
  const data = io.readLocal(String(desired.file));
  if (createHash('sha256').update(data).digest('hex') !== desired.checksum) {
    refuse(`secure file ${String(desired.file)}`, 'changed after the plan was made', 'make the plan again');
  }
  return data;
}

export const secureFilesSection = collectionSection(secureFiles, {
  key: 'secure_files',
  help: 'CI secure files, paired by name: `file` names a local file (relative to this file), compared by its sha256 with the checksum the service keeps, without downloading it. A changed file is deleted and uploaded again (the old one is read first, so that it can be put back should the upload fail).',
  fields: {
    name: specOf(secureFiles.fields.name),
    file: { schema: { type: 'string', minLength: 1 }, help: 'the local file (at most 5 MB), relative to the desired-state file', writeOnly: true },
  },
  values: (record) => ({ name: record.name, checksum: record.checksum }),
  required: ['name', 'file'],
  replaceOnly: true,
  replaceReason: 'the service cannot change the content of a secure file',
  overrides: {
    // The service keeps only a checksum: an export could not say which local file holds the content.
    exported: false,
    check(values, local) {
      const data = local.read(String(values.file));
      if (data.length > SECURE_FILE_LIMITS.maxBytes) refuse('file', `${String(values.file)} is ${data.length.toLocaleString('en-US')} bytes; secure files may be at most 5 MB`);
      return { ...values, checksum: createHash('sha256').update(data).digest('hex') };
    },
    async prepare(io, change) {
      localSecureFile(io, change.desired ?? {});
    },
    async create(io, owner, desired) {
      await uploadSecureFile(io, owner, String(desired.name), localSecureFile(io, desired));
    },
    // The old content, downloaded (into memory only) before the delete, to upload it again should the new upload fail.
    async keepOld(io, owner, live) {
      const old = await (await io.api.open(secureFiles.routes.download, { project: owner.path, ...(live.ref as { secure_file_id: number }) })).buffer();
      return () => uploadSecureFile(io, owner, live.key, old);
    },
  },
});
